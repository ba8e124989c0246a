/**
 * The authorization-code flow with PKCE of the identity-provider stand-in, as Entra ID runs it for a
 * single-page application: `/{tenant}/oauth2/v2.0/authorize` shows a small sign-in page listing the
 * tenant's dev users and redirects back with a code; the token endpoint's `authorization_code` grant
 * checks the client, the redirect URI and the code verifier (S256), and answers an access token for the
 * requested API scope (the user's app roles in `roles`), an ID token and a refresh token. CORS is
 * answered for the origins of registered redirect URIs, as Entra does for SPA registrations.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface IdpUser {
  tenantId: string;
  upn: string;
  displayName: string;
  /** App roles assigned to the user on the service's API. */
  roles: string[];
}

export interface SpaRegistration {
  clientId: string;
  redirectUris: string[];
}

export interface CodeFlowAnswer {
  status: number;
  body: unknown;
  /** An HTML page instead of JSON. */
  html?: string;
  headers?: Record<string, string>;
}

interface Grant {
  tenantId: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  nonce?: string;
  user: IdpUser;
  codeChallenge: string;
  expiresAt: number;
}

interface RefreshGrant {
  tenantId: string;
  clientId: string;
  scope: string;
  user: IdpUser;
}

export interface CodeFlowTokens {
  user(o: {
    tenantId: string;
    clientId: string;
    audience: string;
    scp: string;
    roles: string[];
    upn: string;
    name: string;
  }): string;
  idToken(o: { tenantId: string; clientId: string; upn: string; name: string; nonce?: string }): string;
  oidOf(tenantId: string, upn: string): string;
}

const CODE_LIFETIME_MS = 10 * 60_000;
const TOKEN_LIFETIME_SECONDS = 3600;
const OIDC_SCOPES = new Set(['openid', 'profile', 'offline_access', 'email']);
const GRAPH_AUDIENCE = 'https://graph.microsoft.com';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const oauthError = (status: number, error: string, description: string): CodeFlowAnswer => ({
  status,
  body: { error, error_description: description },
});

function page(status: number, title: string, content: string): CodeFlowAnswer {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#242424}h1{font-size:1.4rem}button{display:block;width:100%;margin:.5rem 0;padding:.75rem;font-size:1rem;text-align:left;border:1px solid #8a8886;border-radius:4px;background:#fff;cursor:pointer}button:focus,button:hover{border-color:#0f6cbd;outline:2px solid #0f6cbd}small{color:#616161}</style></head><body><main>${content}</main></body></html>`;
  return {
    status,
    body: undefined,
    html,
    headers: {
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
    },
  };
}

const base64url = (b: Buffer) => b.toString('base64url');

function originOf(uri: string): string | undefined {
  try {
    return new URL(uri).origin;
  } catch {
    return undefined;
  }
}

/** API scopes (`<resource>/<name>`) of a requested scope string: the resource and the scope names. */
function apiScopes(scope: string): { audience: string; names: string[] } {
  const api = scope.split(' ').filter((s) => s !== '' && !OIDC_SCOPES.has(s));
  const first = api[0];
  if (!first) return { audience: GRAPH_AUDIENCE, names: ['User.Read'] };
  const cut = first.lastIndexOf('/');
  const audience = first.slice(0, cut);
  return {
    audience,
    names: api.filter((s) => s.startsWith(`${audience}/`)).map((s) => s.slice(audience.length + 1)),
  };
}

export function createCodeFlow(o: { users: IdpUser[]; tokens: CodeFlowTokens; now?: () => number }) {
  const now = o.now ?? Date.now;
  const spas: SpaRegistration[] = [];
  const codes = new Map<string, Grant>();
  const refreshTokens = new Map<string, RefreshGrant>();

  const spaFor = (clientId: string) => spas.find((s) => s.clientId.toLowerCase() === clientId.toLowerCase());
  /** `organizations` and `common` sign in work accounts of any tenant, as on Entra ID. */
  const anyTenant = (tenantId: string) => ['organizations', 'common'].includes(tenantId.toLowerCase());
  const usersOf = (tenantId: string) =>
    o.users.filter((u) => anyTenant(tenantId) || u.tenantId.toLowerCase() === tenantId.toLowerCase());

  /** CORS headers for a browser request from the origin of a registered redirect URI. */
  const cors = (origin: string | undefined): Record<string, string> => {
    if (!origin || !spas.some((s) => s.redirectUris.some((u) => originOf(u) === origin))) return {};
    return {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': 'content-type',
      vary: 'Origin',
    };
  };

  /** The request's parameters checked as Entra checks them before it shows the sign-in page. */
  const checkRequest = (tenantId: string, p: URLSearchParams): CodeFlowAnswer | undefined => {
    const spa = spaFor(p.get('client_id') ?? '');
    if (!spa) return page(400, 'Sign-in failed', '<h1>Sign-in failed</h1><p>AADSTS700016: unknown application.</p>');
    if (!spa.redirectUris.includes(p.get('redirect_uri') ?? ''))
      return page(
        400,
        'Sign-in failed',
        '<h1>Sign-in failed</h1><p>AADSTS50011: the redirect URI is not registered for the application.</p>',
      );
    if (p.get('response_type') !== 'code')
      return page(400, 'Sign-in failed', '<h1>Sign-in failed</h1><p>Only response_type=code is supported.</p>');
    if (!p.get('code_challenge') || p.get('code_challenge_method') !== 'S256')
      return page(
        400,
        'Sign-in failed',
        '<h1>Sign-in failed</h1><p>AADSTS9002325: PKCE (code_challenge_method S256) is required for a single-page application.</p>',
      );
    if (usersOf(tenantId).length === 0)
      return page(400, 'Sign-in failed', '<h1>Sign-in failed</h1><p>The tenant has no users here.</p>');
    return undefined;
  };

  const signInPage = (tenantId: string, p: URLSearchParams): CodeFlowAnswer => {
    const refused = checkRequest(tenantId, p);
    if (refused) return refused;
    const hidden = [...p.entries()]
      .filter(([k]) => k !== 'login')
      .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
      .join('');
    const buttons = usersOf(tenantId)
      .map(
        (u) =>
          `<button type="submit" name="login" value="${escapeHtml(u.upn)}">${escapeHtml(u.displayName)}<br><small>${escapeHtml(u.upn)}${u.roles.length ? ` · roles: ${escapeHtml(u.roles.join(', '))}` : ' · no app role'}</small></button>`,
      )
      .join('');
    return page(
      200,
      'Sign in — local identity provider',
      `<h1>Sign in</h1><p>Local identity provider (stand-in for Microsoft Entra ID). Pick an account:</p><form method="post" action="authorize">${hidden}${buttons}</form>`,
    );
  };

  const signIn = (tenantId: string, p: URLSearchParams): CodeFlowAnswer => {
    const refused = checkRequest(tenantId, p);
    if (refused) return refused;
    const user = usersOf(tenantId).find((u) => u.upn.toLowerCase() === (p.get('login') ?? '').toLowerCase());
    if (!user) return signInPage(tenantId, p);
    const code = base64url(randomBytes(32));
    const redirectUri = p.get('redirect_uri') ?? '';
    codes.set(code, {
      tenantId: user.tenantId,
      clientId: p.get('client_id') ?? '',
      redirectUri,
      scope: p.get('scope') ?? '',
      nonce: p.get('nonce') ?? undefined,
      user,
      codeChallenge: p.get('code_challenge') ?? '',
      expiresAt: now() + CODE_LIFETIME_MS,
    });
    const oid = o.tokens.oidOf(user.tenantId, user.upn);
    const answer = new URLSearchParams({
      code,
      client_info: base64url(Buffer.from(JSON.stringify({ uid: oid, utid: user.tenantId }))),
      state: p.get('state') ?? '',
      session_state: base64url(randomBytes(8)),
    });
    const separator = p.get('response_mode') === 'query' ? '?' : '#';
    return { status: 302, body: undefined, headers: { location: `${redirectUri}${separator}${answer.toString()}` } };
  };

  const tokensFor = (g: RefreshGrant, nonce?: string): CodeFlowAnswer => {
    const { audience, names } = apiScopes(g.scope);
    const oid = o.tokens.oidOf(g.tenantId, g.user.upn);
    const refreshToken = base64url(randomBytes(32));
    refreshTokens.set(refreshToken, g);
    return {
      status: 200,
      body: {
        token_type: 'Bearer',
        scope: names.map((n) => `${audience}/${n}`).join(' '),
        expires_in: TOKEN_LIFETIME_SECONDS - 1,
        ext_expires_in: TOKEN_LIFETIME_SECONDS - 1,
        access_token: o.tokens.user({
          tenantId: g.tenantId,
          clientId: g.clientId,
          audience,
          scp: names.join(' '),
          roles: audience === GRAPH_AUDIENCE ? [] : g.user.roles,
          upn: g.user.upn,
          name: g.user.displayName,
        }),
        id_token: o.tokens.idToken({
          tenantId: g.tenantId,
          clientId: g.clientId,
          upn: g.user.upn,
          name: g.user.displayName,
          nonce,
        }),
        client_info: base64url(Buffer.from(JSON.stringify({ uid: oid, utid: g.tenantId }))),
        refresh_token: refreshToken,
        refresh_token_expires_in: 86_400,
      },
    };
  };

  const redeem = (tenantId: string, form: URLSearchParams): CodeFlowAnswer => {
    if (form.get('grant_type') === 'refresh_token') {
      const g = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!g || g.clientId.toLowerCase() !== (form.get('client_id') ?? '').toLowerCase())
        return oauthError(400, 'invalid_grant', 'AADSTS70000: the refresh token is not valid');
      refreshTokens.delete(form.get('refresh_token') ?? '');
      return tokensFor({ ...g, scope: form.get('scope') ?? g.scope });
    }
    const code = form.get('code') ?? '';
    const g = codes.get(code);
    codes.delete(code); // a code is redeemed once
    if (!g || g.expiresAt < now() || (!anyTenant(tenantId) && g.tenantId.toLowerCase() !== tenantId.toLowerCase()))
      return oauthError(400, 'invalid_grant', 'AADSTS70008: the authorization code is not valid or has expired');
    if (g.clientId.toLowerCase() !== (form.get('client_id') ?? '').toLowerCase())
      return oauthError(400, 'invalid_grant', 'AADSTS70000: the code was issued to another client');
    if (g.redirectUri !== form.get('redirect_uri'))
      return oauthError(400, 'invalid_grant', 'AADSTS50148: the redirect URI differs from the authorization request');
    const verifier = form.get('code_verifier') ?? '';
    if (base64url(createHash('sha256').update(verifier).digest()) !== g.codeChallenge)
      return oauthError(400, 'invalid_grant', 'AADSTS50148: the code_verifier does not match the code_challenge');
    return tokensFor({ tenantId: g.tenantId, clientId: g.clientId, scope: g.scope, user: g.user }, g.nonce);
  };

  return {
    registerSpa: (spa: SpaRegistration) => void spas.push(spa),
    cors,
    signInPage,
    signIn,
    redeem,
    endSession: (p: URLSearchParams): CodeFlowAnswer => {
      const target = p.get('post_logout_redirect_uri') ?? '';
      if (target && spas.some((s) => s.redirectUris.some((u) => originOf(u) === originOf(target))))
        return { status: 302, body: undefined, headers: { location: target } };
      return page(200, 'Signed out', '<h1>Signed out</h1><p>You have signed out.</p>');
    },
  };
}

export type CodeFlow = ReturnType<typeof createCodeFlow>;
