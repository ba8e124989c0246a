/**
 * local.settings.sample.json (what Core Tools reads) names the identity-provider stand-in by the same
 * host name the stand-in puts in `iss`: a token from the stand-in validates under the sample settings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadSettings } from '../../../lib/config/settings';
import { createTokenValidator } from '../../../lib/auth/tokenValidator';
import { startIdpStandIn, type IdpStandIn } from '../../../devhost/idpStandIn';
import { DEFAULT_PORTS, DEV_CLIENTS, SERVICE_SCOPE } from '../../../devhost/devData';

const sample = (
  JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'local.settings.sample.json'), 'utf8')) as {
    Values: Record<string, string>;
  }
).Values;

let idp: IdpStandIn;
beforeAll(async () => {
  const { tenantId, clientId, secret, roles } = DEV_CLIENTS.admin;
  idp = await startIdpStandIn({ port: 0, clients: [{ tenantId, clientId, secret, roles }] });
});
afterAll(async () => idp?.close());

describe('the sample settings and the identity-provider stand-in', () => {
  it('name the stand-in by one host name, on its default port', () => {
    const authority = new URL(sample.AUTH_AUTHORITY ?? '');
    expect(authority.host).toBe(`${new URL(idp.url).hostname}:${DEFAULT_PORTS.idp}`);
    expect(new URL(idp.issuer(DEV_CLIENTS.admin.tenantId)).hostname).toBe(authority.hostname);
  });

  it('accept a token the stand-in issued, validated under the sample settings', async () => {
    // The sample's host name with the port this test's stand-in listens on (the fixed one may be in use).
    const authority = new URL(sample.AUTH_AUTHORITY ?? '');
    authority.port = new URL(idp.url).port;
    const settings = loadSettings({ ...sample, AUTH_AUTHORITY: authority.origin });
    const { tenantId, clientId, secret } = DEV_CLIENTS.admin;
    const res = await fetch(`${settings.auth.authority}/${tenantId}/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
        scope: SERVICE_SCOPE,
      }).toString(),
    });
    expect(res.status).toBe(200);
    const token = ((await res.json()) as { access_token: string }).access_token;
    const validator = createTokenValidator({ authority: settings.auth.authority, audiences: settings.auth.audiences });
    await expect(validator.validate(`Bearer ${token}`)).resolves.toMatchObject({
      tenantId,
      clientId,
      roles: ['Admin'],
      kind: 'app',
    });
  });
});
