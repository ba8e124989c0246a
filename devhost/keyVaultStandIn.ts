/**
 * A Key Vault stand-in for the local stack: the key operations the service's `@azure/keyvault-keys` client
 * sends (get key, wrapKey and unwrapKey with RSA-OAEP-256, create and rotate for a new version), with Key
 * Vault's challenge: a request without a bearer token is answered 401 with `WWW-Authenticate`, as Azure does,
 * so the real client's challenge handling runs. Any bearer token is accepted (the stand-in guards nothing).
 * Keys are RSA 2048 here (quick to make at every test start; the template's key is RSA 3072 or RSA-HSM).
 * With a key file the keys survive restarts, as the local engine's data does: without them the data keys
 * wrapped in the store could not be unwrapped after a restart.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  constants,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

export interface KeyVaultStandIn {
  url: string;
  /** Key names and their versions, oldest first (tests). */
  versions(name: string): string[];
  /** Counts of operations served (tests, benchmarks). */
  stats(): { wrapKey: number; unwrapKey: number; getKey: number; challenges: number };
  close(): Promise<void>;
}

export interface KeyVaultStandInOptions {
  port: number;
  host?: string;
  /** Keys created at start when missing (the service's key). */
  keys?: string[];
  /** File the keys are kept in; without it each start has new keys. */
  keyFile?: string;
}

interface Version {
  version: string;
  privateKey: KeyObject;
  created: number;
}

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

function newVersion(): Version {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { version: randomBytes(16).toString('hex'), privateKey, created: Math.floor(Date.now() / 1000) };
}

function load(keyFile: string | undefined): Map<string, Version[]> {
  const keys = new Map<string, Version[]>();
  if (!keyFile || !fs.existsSync(keyFile)) return keys;
  const saved = JSON.parse(fs.readFileSync(keyFile, 'utf8')) as Record<
    string,
    Array<{ version: string; pem: string; created: number }>
  >;
  for (const [name, versions] of Object.entries(saved))
    keys.set(
      name,
      versions.map((v) => ({ version: v.version, privateKey: createPrivateKey(v.pem), created: v.created })),
    );
  return keys;
}

function save(keyFile: string | undefined, keys: Map<string, Version[]>): void {
  if (!keyFile) return;
  const out: Record<string, Array<{ version: string; pem: string; created: number }>> = {};
  for (const [name, versions] of keys)
    out[name] = versions.map((v) => ({
      version: v.version,
      pem: v.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      created: v.created,
    }));
  fs.mkdirSync(path.dirname(keyFile), { recursive: true });
  fs.writeFileSync(keyFile, JSON.stringify(out), { mode: 0o600 });
}

const OAEP_256 = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' };

export async function startKeyVaultStandIn(opts: KeyVaultStandInOptions): Promise<KeyVaultStandIn> {
  const keys = load(opts.keyFile);
  for (const name of opts.keys ?? []) if (!keys.has(name)) keys.set(name, [newVersion()]);
  save(opts.keyFile, keys);
  const stats = { wrapKey: 0, unwrapKey: 0, getKey: 0, challenges: 0 };
  let baseUrl = '';

  const bundle = (name: string, v: Version) => {
    const jwk = createPublicKey(v.privateKey).export({ format: 'jwk' });
    return {
      key: {
        kid: `${baseUrl}/keys/${name}/${v.version}`,
        kty: 'RSA',
        key_ops: ['wrapKey', 'unwrapKey'],
        n: jwk.n,
        e: jwk.e,
      },
      attributes: {
        enabled: true,
        created: v.created,
        updated: v.created,
        recoveryLevel: 'Recoverable',
        exportable: false,
      },
    };
  };
  const notFound = (what: string): Answer => ({
    status: 404,
    body: { error: { code: 'KeyNotFound', message: `A key with (name/id) ${what} was not found in this key vault.` } },
  });
  const badRequest = (message: string): Answer => ({ status: 400, body: { error: { code: 'BadParameter', message } } });

  const serve = (req: http.IncomingMessage, raw: string): Answer => {
    if (!req.headers.authorization?.startsWith('Bearer ')) {
      stats.challenges++;
      return {
        status: 401,
        body: { error: { code: 'Unauthorized', message: 'AKV10000: Request is missing a Bearer or PoP token.' } },
        headers: {
          'WWW-Authenticate': `Bearer authorization="https://login.microsoftonline.com/00000000-0000-0000-0000-000000000000", resource="https://vault.azure.net"`,
        },
      };
    }
    const url = new URL(req.url ?? '/', baseUrl);
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'keys' || !parts[1]) return notFound(url.pathname);
    const name = decodeURIComponent(parts[1]);
    const versions = keys.get(name);
    const op = parts.length === 3 ? parts[2] : parts[3];
    if (req.method === 'POST' && (op === 'create' || op === 'rotate') && parts.length === 3) {
      const list = versions ?? [];
      const v = newVersion();
      list.push(v);
      keys.set(name, list);
      save(opts.keyFile, keys);
      return { status: 200, body: bundle(name, v) };
    }
    if (!versions || versions.length === 0) return notFound(name);
    const versionId = parts.length >= 3 && parts[2] !== 'create' && parts[2] !== 'rotate' ? parts[2] : undefined;
    const v = versionId ? versions.find((x) => x.version === versionId) : versions[versions.length - 1];
    if (!v) return notFound(`${name}/${versionId}`);
    if (req.method === 'GET' && (parts.length === 2 || parts.length === 3)) {
      stats.getKey++;
      return { status: 200, body: bundle(name, v) };
    }
    if (req.method === 'POST' && parts.length === 4 && (op === 'wrapkey' || op === 'unwrapkey')) {
      let body: { alg?: unknown; value?: unknown };
      try {
        body = JSON.parse(raw) as { alg?: unknown; value?: unknown };
      } catch {
        return badRequest('The request body is not JSON.');
      }
      if (body.alg !== 'RSA-OAEP-256') return badRequest('Only RSA-OAEP-256 is served by the stand-in.');
      if (typeof body.value !== 'string') return badRequest('value is required.');
      const input = Buffer.from(body.value, 'base64url');
      const kid = `${baseUrl}/keys/${name}/${v.version}`;
      if (op === 'wrapkey') {
        stats.wrapKey++;
        const out = publicEncrypt({ key: createPublicKey(v.privateKey), ...OAEP_256 }, input);
        return { status: 200, body: { kid, value: out.toString('base64url') } };
      }
      stats.unwrapKey++;
      try {
        const out = privateDecrypt({ key: v.privateKey, ...OAEP_256 }, input);
        return { status: 200, body: { kid, value: out.toString('base64url') } };
      } catch {
        return badRequest('The wrapped key could not be unwrapped with this key.');
      }
    }
    return { status: 405, body: { error: { code: 'MethodNotAllowed', message: 'Not served by the stand-in.' } } };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let answer: Answer;
      try {
        answer = serve(req, Buffer.concat(chunks).toString('utf8'));
      } catch {
        answer = { status: 500, body: { error: { code: 'InternalError', message: 'The stand-in failed.' } } };
      }
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port, opts.host ?? '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: baseUrl,
    versions: (name) => (keys.get(name) ?? []).map((v) => v.version),
    stats: () => ({ ...stats }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
