import { constants, createHash, verify, X509Certificate } from 'node:crypto';
import {
  ASSERTION_LIFETIME_SECONDS,
  CachedToken,
  CertificateUnusable,
  CLIENT_ASSERTION_TYPE,
  certificateAuthentication,
  readClientCertificate,
  requestToken,
  secretAuthentication,
  signClientAssertion,
  TokenRequestFailed,
  type IssuedToken,
} from '../../../../scripts/importClient/credentials';
import { selfSignedCertificate } from '../../../support/selfSignedCertificate';

const MINUTE = 60_000;

/** A token endpoint stand-in on a fake clock: each token is named by its number and lives `lifetimeS`. */
function issuer(clock: { now: number }, lifetimeS = 3600) {
  const issued: Array<{ token: string; expiresAt: number }> = [];
  let failing = false;
  return {
    issued,
    fail: (f: boolean) => (failing = f),
    issue: async (): Promise<IssuedToken> => {
      await Promise.resolve();
      if (failing) throw new TokenRequestFailed(503);
      const token = `token-${issued.length + 1}`;
      issued.push({ token, expiresAt: clock.now + lifetimeS * 1000 });
      return { accessToken: token, expiresInSeconds: lifetimeS };
    },
  };
}

describe('the client credential: a cached token renewed before it expires', () => {
  it('reuses a token, and renews it five minutes before it expires', async () => {
    const clock = { now: 0 };
    const idp = issuer(clock);
    const cached = new CachedToken(idp.issue, () => clock.now);
    expect(await cached.token()).toBe('token-1');
    clock.now = 54 * MINUTE;
    expect(await cached.token()).toBe('token-1');
    clock.now = 55 * MINUTE;
    expect(await cached.token()).toBe('token-2');
    expect(cached.requests).toBe(2);
  });

  it('gives a token valid for minutes to every request of an upload that outlasts many tokens', async () => {
    const clock = { now: 0 };
    const idp = issuer(clock);
    const cached = new CachedToken(idp.issue, () => clock.now);
    // A part every 2 s for five hours (a very large upload and its run).
    for (; clock.now < 5 * 60 * MINUTE; clock.now += 2_000) {
      const token = await cached.token();
      const expiresAt = idp.issued.find((t) => t.token === token)!.expiresAt;
      expect(expiresAt - clock.now).toBeGreaterThanOrEqual(5 * MINUTE);
    }
    expect(cached.requests).toBe(6);
  });

  it('renews a short-lived token at half its life', async () => {
    const clock = { now: 0 };
    const cached = new CachedToken(issuer(clock, 60).issue, () => clock.now);
    await cached.token();
    clock.now = 29_000;
    expect(await cached.token()).toBe('token-1');
    clock.now = 30_000;
    expect(await cached.token()).toBe('token-2');
  });

  it('asks once for callers at the same moment', async () => {
    const clock = { now: 0 };
    const cached = new CachedToken(issuer(clock).issue, () => clock.now);
    expect(await Promise.all([cached.token(), cached.token(), cached.token()])).toEqual([
      'token-1',
      'token-1',
      'token-1',
    ]);
    expect(cached.requests).toBe(1);
  });

  it('keeps a valid token while a renewal fails, tries again 30 s later, and fails once the token expired', async () => {
    const clock = { now: 0 };
    const idp = issuer(clock);
    const cached = new CachedToken(idp.issue, () => clock.now);
    await cached.token();
    idp.fail(true);
    clock.now = 56 * MINUTE;
    expect(await cached.token()).toBe('token-1');
    expect(cached.requests).toBe(2);
    clock.now += 10_000;
    expect(await cached.token()).toBe('token-1');
    expect(cached.requests).toBe(2);
    clock.now += 20_000;
    expect(await cached.token()).toBe('token-1');
    expect(cached.requests).toBe(3);
    clock.now = 60 * MINUTE - 5_000;
    await expect(cached.token()).rejects.toThrow(TokenRequestFailed);
    idp.fail(false);
    expect(await cached.token()).toBe('token-2');
  });

  it('forgets a token the service refused', async () => {
    const clock = { now: 0 };
    const cached = new CachedToken(issuer(clock).issue, () => clock.now);
    await cached.token();
    cached.invalidate();
    expect(await cached.token()).toBe('token-2');
  });
});

describe('token requests', () => {
  const answer = (status: number, body: unknown) =>
    jest.fn(async (_url: string | URL | Request, _init?: RequestInit) =>
      Promise.resolve(new Response(JSON.stringify(body), { status })),
    );

  it('form-encodes every value (a secret may hold + or &) and reads expires_in', async () => {
    const fetchImpl = answer(200, { access_token: 'at', expires_in: 3599 });
    const issued = await requestToken(
      {
        endpoint: 'https://idp/t/oauth2/v2.0/token',
        clientId: 'c',
        scope: 'api://s/.default',
        authenticate: secretAuthentication('a+b&c=d %x'),
      },
      fetchImpl as unknown as typeof fetch,
    );
    expect(issued).toEqual({ accessToken: 'at', expiresInSeconds: 3599 });
    const form = new URLSearchParams(String(fetchImpl.mock.calls[0]![1]!.body));
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'client_credentials',
      client_id: 'c',
      scope: 'api://s/.default',
      client_secret: 'a+b&c=d %x',
    });
  });

  it("fails with the HTTP status and Entra's AADSTS code, never the credential", async () => {
    const fetchImpl = answer(401, {
      error: 'invalid_client',
      error_description: 'AADSTS7000215: Invalid client secret provided.',
      error_codes: [7000215],
    });
    const failed = await requestToken(
      {
        endpoint: 'https://idp/t/oauth2/v2.0/token',
        clientId: 'c',
        scope: 's/.default',
        authenticate: secretAuthentication('s3cret'),
      },
      fetchImpl as unknown as typeof fetch,
    ).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(TokenRequestFailed);
    expect((failed as Error).message).toBe('token request failed (HTTP 401, AADSTS7000215)');
  });
});

describe('the certificate credential', () => {
  const cert = selfSignedCertificate();
  const endpoint = 'https://login.microsoftonline.com/11111111-1111-4111-8111-111111111111/oauth2/v2.0/token';
  const decode = (part: string | undefined) =>
    JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

  it("signs a client assertion as Microsoft's identity platform expects it (PS256, x5t#S256, aud = token endpoint)", () => {
    const nowMs = Date.UTC(2030, 0, 1);
    const assertion = signClientAssertion(readClientCertificate(cert.pem), {
      clientId: 'client-1',
      tokenEndpoint: endpoint,
      nowMs,
    });
    const [header, claims, signature] = assertion.split('.');
    const x509 = new X509Certificate(cert.certificatePem);
    expect(decode(header)).toEqual({
      alg: 'PS256',
      typ: 'JWT',
      'x5t#S256': createHash('sha256').update(x509.raw).digest('base64url'),
    });
    const now = nowMs / 1000;
    expect(decode(claims)).toEqual({
      aud: endpoint,
      iss: 'client-1',
      sub: 'client-1',
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      nbf: now,
      iat: now,
      exp: now + ASSERTION_LIFETIME_SECONDS,
    });
    expect(
      verify(
        'sha256',
        Buffer.from(`${header}.${claims}`),
        { key: x509.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
        Buffer.from(signature ?? '', 'base64url'),
      ),
    ).toBe(true);
  });

  it('sends a new assertion (new jti) with each token request, in place of a secret', () => {
    const authenticate = certificateAuthentication(readClientCertificate(cert.pem), 'client-1');
    const first = authenticate(endpoint);
    const second = authenticate(endpoint);
    expect(first.client_assertion_type).toBe(CLIENT_ASSERTION_TYPE);
    expect(first.client_secret).toBeUndefined();
    expect(decode(first.client_assertion?.split('.')[1]).jti).not.toBe(
      decode(second.client_assertion?.split('.')[1]).jti,
    );
  });

  it('reads the key and certificate in either order, an encrypted key with its password, and refuses what does not fit', () => {
    const keyPem = cert.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(readClientCertificate(`${cert.certificatePem}${keyPem}`).thumbprintSha256).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const encrypted = cert.privateKey
      .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' })
      .toString();
    expect(readClientCertificate(`${encrypted}${cert.certificatePem}`, 'pw').thumbprintSha256).toBe(
      readClientCertificate(cert.pem).thumbprintSha256,
    );
    expect(() => readClientCertificate(`${encrypted}${cert.certificatePem}`, 'wrong')).toThrow(CertificateUnusable);
    expect(() => readClientCertificate(cert.certificatePem)).toThrow(/no usable private key/);
    expect(() => readClientCertificate(keyPem)).toThrow(/no certificate/);
    const other = selfSignedCertificate();
    expect(() => readClientCertificate(`${keyPem}${other.certificatePem}`)).toThrow(/does not belong/);
  });
});
