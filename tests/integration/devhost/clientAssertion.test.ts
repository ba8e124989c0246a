/**
 * The identity-provider stand-in authenticates a client by a signed client assertion as Microsoft Entra ID
 * does (certificate credentials; RFC 7523 jwt-bearer), over real HTTP: a valid assertion gets a token, a
 * bad one is refused with Entra's error shape (an AADSTS code) and without repeating the assertion.
 */
import { constants, createHash, randomUUID, sign, X509Certificate, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { startIdpStandIn, type IdpStandIn } from '../../../devhost/idpStandIn';
import { CLIENT_ASSERTION_TYPE } from '../../../devhost/idpClientAssertion';
import { readClientCertificate, signClientAssertion } from '../../../scripts/importClient/credentials';
import { selfSignedCertificate } from '../../support/selfSignedCertificate';

const TENANT = 'a0a0a0a0-1111-4111-8111-000000000001';
const CLIENT_ID = 'c0000000-0000-4000-8000-0000000000c1';
const AUDIENCE = 'api://business-identity-service';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An assertion with exactly these header fields and claims, signed with `key` (PS256 or RS256 as the header says). */
function assertion(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64(header)}.${b64(claims)}`;
  const signature =
    header.alg === 'RS256'
      ? sign('sha256', Buffer.from(input), key)
      : sign('sha256', Buffer.from(input), {
          key,
          padding: constants.RSA_PKCS1_PSS_PADDING,
          saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
        });
  return `${input}.${signature.toString('base64url')}`;
}

describe('client assertions at the identity-provider stand-in', () => {
  let idp: IdpStandIn;
  const registered = selfSignedCertificate();
  const other = selfSignedCertificate();
  const expired = selfSignedCertificate({
    notBefore: new Date(Date.now() - 48 * 3600_000),
    notAfter: new Date(Date.now() - 24 * 3600_000),
  });
  const thumbprint = (pem: string, alg: 'sha256' | 'sha1') =>
    createHash(alg).update(new X509Certificate(pem).raw).digest('base64url');

  beforeAll(async () => {
    idp = await startIdpStandIn({ port: 0, clients: [] });
    idp.addClient({
      tenantId: TENANT,
      clientId: CLIENT_ID,
      roles: ['Admin'],
      certificates: [registered.certificatePem, expired.certificatePem],
    });
  });
  afterAll(async () => idp?.close());

  const endpoint = () => `${idp.url}/${TENANT}/oauth2/v2.0/token`;
  const claims = (extra: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return {
      aud: endpoint(),
      iss: CLIENT_ID,
      sub: CLIENT_ID,
      jti: randomUUID(),
      nbf: now,
      iat: now,
      exp: now + 300,
      ...extra,
    };
  };
  const header = (pem = registered.certificatePem) => ({
    alg: 'PS256',
    typ: 'JWT',
    'x5t#S256': thumbprint(pem, 'sha256'),
  });
  const requestToken = async (fields: Record<string, string>) => {
    const res = await fetch(endpoint(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: CLIENT_ID,
        scope: `${AUDIENCE}/.default`,
        ...fields,
      }).toString(),
    });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
  };
  const withAssertion = (a: string) =>
    requestToken({ client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: a });

  /** Entra's error shape, the AADSTS code named, and nothing of the assertion repeated. */
  const expectRefused = (
    answer: { status: number; text: string; body: Record<string, unknown> },
    o: { status: number; error: string; code: number; sent: string },
  ) => {
    expect(answer.status).toBe(o.status);
    expect(answer.body).toMatchObject({
      error: o.error,
      error_description: expect.stringMatching(
        new RegExp(
          `^AADSTS${o.code}: [^\\r]+\\r\\nTrace ID: [0-9a-f-]{36}\\r\\nCorrelation ID: [0-9a-f-]{36}\\r\\nTimestamp: `,
        ),
      ),
      error_codes: [o.code],
      trace_id: expect.any(String),
      correlation_id: expect.any(String),
      timestamp: expect.any(String),
    });
    expect(answer.body.access_token).toBeUndefined();
    const [h, c, s] = o.sent.split('.');
    for (const part of [o.sent, h, c, s]) if (part) expect(answer.text).not.toContain(part);
    let jti: unknown;
    try {
      jti = (JSON.parse(Buffer.from(c ?? '', 'base64url').toString()) as { jti?: unknown }).jti;
    } catch {
      jti = undefined;
    }
    if (typeof jti === 'string') expect(answer.text).not.toContain(jti);
    expect(answer.text).not.toContain(CLIENT_ID);
  };

  it('issues a token for an assertion signed by the registered certificate, as the import client makes it', async () => {
    const signed = signClientAssertion(readClientCertificate(registered.pem), {
      clientId: CLIENT_ID,
      tokenEndpoint: endpoint(),
      nowMs: Date.now(),
    });
    const answer = await withAssertion(signed);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: 'Bearer', expires_in: expect.any(Number) });
    const token = jwt.verify(String(answer.body.access_token), idp.publicKeyPem, { algorithms: ['RS256'] }) as Record<
      string,
      unknown
    >;
    expect(token).toMatchObject({ aud: AUDIENCE, appid: CLIENT_ID, tid: TENANT, roles: ['Admin'], idtyp: 'app' });
    // The same assertion again is accepted, as Entra accepts it (MSAL reuses an assertion while it is valid).
    expect((await withAssertion(signed)).status).toBe(200);
  });

  it('accepts the older form too: RS256 with the SHA-1 thumbprint (x5t)', async () => {
    const a = assertion(
      { alg: 'RS256', typ: 'JWT', x5t: thumbprint(registered.certificatePem, 'sha1') },
      claims(),
      registered.privateKey,
    );
    expect((await withAssertion(a)).status).toBe(200);
  });

  it('refuses an assertion signed by another key, or by a certificate that is not registered (AADSTS700027)', async () => {
    const wrongKey = assertion(header(), claims(), other.privateKey);
    expectRefused(await withAssertion(wrongKey), {
      status: 401,
      error: 'invalid_client',
      code: 700027,
      sent: wrongKey,
    });
    const unregistered = assertion(header(other.certificatePem), claims(), other.privateKey);
    expectRefused(await withAssertion(unregistered), {
      status: 401,
      error: 'invalid_client',
      code: 700027,
      sent: unregistered,
    });
    const byExpiredCertificate = assertion(header(expired.certificatePem), claims(), expired.privateKey);
    expectRefused(await withAssertion(byExpiredCertificate), {
      status: 401,
      error: 'invalid_client',
      code: 700027,
      sent: byExpiredCertificate,
    });
  });

  it('refuses an assertion for another audience (AADSTS50027)', async () => {
    for (const aud of [
      `${idp.url}/${'b0b0b0b0-2222-4222-8222-000000000002'}/oauth2/v2.0/token`,
      AUDIENCE,
      ['x', 'y'],
    ]) {
      const a = assertion(header(), claims({ aud }), registered.privateKey);
      expectRefused(await withAssertion(a), { status: 401, error: 'invalid_client', code: 50027, sent: a });
    }
  });

  it('refuses an expired assertion, or one not valid yet (AADSTS700024)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expiredAssertion = assertion(
      header(),
      claims({ nbf: now - 3900, iat: now - 3900, exp: now - 3600 }),
      registered.privateKey,
    );
    expectRefused(await withAssertion(expiredAssertion), {
      status: 401,
      error: 'invalid_client',
      code: 700024,
      sent: expiredAssertion,
    });
    const early = assertion(header(), claims({ nbf: now + 3600, exp: now + 3900 }), registered.privateKey);
    expectRefused(await withAssertion(early), { status: 401, error: 'invalid_client', code: 700024, sent: early });
  });

  it('refuses a malformed assertion, missing claims, iss other than sub, an unknown client and a missing assertion', async () => {
    const malformed = 'Qm9ndXM.UGFydA';
    expectRefused(await withAssertion(malformed), {
      status: 401,
      error: 'invalid_client',
      code: 50027,
      sent: malformed,
    });
    const noneAlg = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.x`;
    expectRefused(await withAssertion(noneAlg), { status: 401, error: 'invalid_client', code: 50027, sent: noneAlg });
    const { jti: _jti, ...noJti } = claims();
    const withoutJti = assertion(header(), noJti, registered.privateKey);
    expectRefused(await withAssertion(withoutJti), {
      status: 401,
      error: 'invalid_client',
      code: 50027,
      sent: withoutJti,
    });
    const { exp: _exp, ...noExp } = claims();
    const withoutExp = assertion(header(), noExp, registered.privateKey);
    expectRefused(await withAssertion(withoutExp), {
      status: 401,
      error: 'invalid_client',
      code: 50027,
      sent: withoutExp,
    });
    const mismatch = assertion(header(), claims({ sub: 'someone-else' }), registered.privateKey);
    expectRefused(await withAssertion(mismatch), { status: 401, error: 'invalid_client', code: 50048, sent: mismatch });
    const stranger = 'c0000000-0000-4000-8000-0000000000ff';
    const unknown = assertion(header(), claims({ iss: stranger, sub: stranger }), registered.privateKey);
    const unknownAnswer = await requestToken({
      client_id: stranger,
      client_assertion_type: CLIENT_ASSERTION_TYPE,
      client_assertion: unknown,
    });
    expectRefused(unknownAnswer, { status: 400, error: 'unauthorized_client', code: 700016, sent: unknown });
    expect(unknownAnswer.text).not.toContain(stranger);
    expectRefused(await requestToken({ client_assertion_type: CLIENT_ASSERTION_TYPE }), {
      status: 401,
      error: 'invalid_client',
      code: 7000218,
      sent: '',
    });
  });

  it('does not let a certificate-only client in with a client secret', async () => {
    for (const secret of ['', 'anything']) {
      const answer = await requestToken({ client_secret: secret });
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_client');
    }
  });
});
