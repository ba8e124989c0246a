/**
 * The identity-provider stand-in's authorization-code flow with PKCE, as Entra runs it for a single-page
 * application: the sign-in page, the redirect with a code, and the token endpoint's checks.
 */
import { createHash, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { startTestStack, call, type TestStack } from '../../support/stack';
import { CONSOLE_SCOPE, DEV_CONSOLE_CLIENT_ID, DEV_TENANT_ID } from '../../../devhost/devData';

describe('identity-provider stand-in: authorization code with PKCE', () => {
  let stack: TestStack;
  let redirectUri: string;
  beforeAll(async () => {
    stack = await startTestStack();
    redirectUri = `${stack.base}/console/`;
  });
  afterAll(async () => stack?.stop());

  const verifier = () => randomBytes(32).toString('base64url');
  const challengeOf = (v: string) => createHash('sha256').update(v).digest('base64url');
  const authorizeParams = (challenge: string, extra: Record<string, string> = {}) =>
    new URLSearchParams({
      client_id: DEV_CONSOLE_CLIENT_ID,
      redirect_uri: redirectUri,
      response_type: 'code',
      response_mode: 'fragment',
      scope: `${CONSOLE_SCOPE} openid profile offline_access`,
      state: 'st-1',
      nonce: 'n-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    });
  const signIn = async (login: string, challenge: string) => {
    const res = await fetch(`${stack.idp.url}/organizations/oauth2/v2.0/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...Object.fromEntries(authorizeParams(challenge)), login }).toString(),
    });
    expect(res.status).toBe(302);
    const location = res.headers.get('location') ?? '';
    expect(location.startsWith(`${redirectUri}#`)).toBe(true);
    return new URLSearchParams(location.slice(location.indexOf('#') + 1));
  };
  const redeem = (code: string, codeVerifier: string, extra: Record<string, string> = {}) =>
    call<Record<string, string>>(`${stack.idp.url}/organizations/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(stack.base).origin },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: DEV_CONSOLE_CLIENT_ID,
        redirect_uri: redirectUri,
        code,
        code_verifier: codeVerifier,
        scope: `${CONSOLE_SCOPE} openid profile offline_access`,
        ...extra,
      }).toString(),
    });

  it('shows a sign-in page listing the dev users, under a CSP without script', async () => {
    const res = await call(
      `${stack.idp.url}/organizations/oauth2/v2.0/authorize?${authorizeParams(challengeOf(verifier()))}`,
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('admin@dev.example.com');
    expect(res.text).toContain('reader@dev.example.com');
    expect(res.text).not.toContain('<script');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('refuses an unregistered redirect URI and a request without PKCE', async () => {
    const v = challengeOf(verifier());
    const wrongRedirect = await call(
      `${stack.idp.url}/organizations/oauth2/v2.0/authorize?${authorizeParams(v, { redirect_uri: 'https://evil.example/' })}`,
    );
    expect(wrongRedirect.status).toBe(400);
    expect(wrongRedirect.text).toContain('AADSTS50011');
    const noPkce = await call(
      `${stack.idp.url}/organizations/oauth2/v2.0/authorize?${authorizeParams(v, { code_challenge_method: 'plain' })}`,
    );
    expect(noPkce.status).toBe(400);
    expect(noPkce.text).toContain('AADSTS9002325');
  });

  it('redeems a code once, with the right verifier, for tokens carrying the scope and the user roles', async () => {
    const v = verifier();
    const answer = await signIn('admin@dev.example.com', challengeOf(v));
    expect(answer.get('state')).toBe('st-1');
    const code = answer.get('code')!;
    const wrong = await redeem(code, verifier());
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    // The failed try used the code up, as Entra does.
    expect((await redeem(code, v)).status).toBe(400);
    const v2 = verifier();
    const second = await signIn('admin@dev.example.com', challengeOf(v2));
    const ok = await redeem(second.get('code')!, v2);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(new URL(stack.base).origin);
    const access = jwt.decode(ok.body.access_token!) as Record<string, unknown>;
    expect(access).toMatchObject({ scp: 'Console.Admin', roles: ['Admin'], tid: DEV_TENANT_ID, idtyp: 'user' });
    const id = jwt.decode(ok.body.id_token!) as Record<string, unknown>;
    expect(id).toMatchObject({ aud: DEV_CONSOLE_CLIENT_ID, nonce: 'n-1', preferred_username: 'admin@dev.example.com' });
    expect((await redeem(second.get('code')!, v2)).status).toBe(400);
    const refreshed = await call<Record<string, string>>(`${stack.idp.url}/organizations/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: DEV_CONSOLE_CLIENT_ID,
        refresh_token: ok.body.refresh_token!,
        scope: CONSOLE_SCOPE,
      }).toString(),
    });
    expect(refreshed.status).toBe(200);
  });

  it('gives the user without the role a token without roles, which GraphQL refuses', async () => {
    const v = verifier();
    const answer = await signIn('reader@dev.example.com', challengeOf(v));
    const ok = await redeem(answer.get('code')!, v);
    const access = jwt.decode(ok.body.access_token!) as Record<string, unknown>;
    expect(access.roles).toBeUndefined();
    const res = await call<{ errors?: Array<{ extensions?: { code?: string } }> }>(`${stack.base}/graphql`, {
      method: 'POST',
      token: ok.body.access_token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ scimIntegrations { id } }' }),
    });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHORIZED');
  });
});
