/**
 * The administrator console at /console: the built single-page application (static files with hashed
 * names under assets/, cached for a year; pages never stored), its sign-in configuration
 * (config.json, from the settings), under a strict Content-Security-Policy: scripts and styles only from
 * the service, connections only to the service and the sign-in authority, no frames of the service.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { settings, type Settings } from '../config/settings';
import { correlationIdOf, loggerFor } from './request';
import type { Logger } from '../log/logger';

/** The folder of the built console (console-app/ beside the bundle, or dist/console-app/ of the project). */
export const CONSOLE_FOLDER = 'console-app';
const INDEX = 'index.html';
const GRAPHIQL_PAGE = 'graphiql.html';
/** Where a page's style nonce goes (console/index.html: `<meta name="csp-nonce" content="…">`). */
const NONCE_PLACEHOLDER = '__CSP_NONCE__';
const YEAR_SECONDS = 365 * 86_400;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The folder holding the built console, looked for upwards from this module; undefined when it was not built. */
export function findConsoleFolder(from: string = __dirname): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    for (const candidate of [path.join(dir, CONSOLE_FOLDER), path.join(dir, 'dist', CONSOLE_FOLDER)])
      if (fs.existsSync(path.join(candidate, INDEX))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function originOf(url: string): string {
  return new URL(url).origin;
}

/**
 * The console's CSP: no inline script or style, nothing from a third party; connect only to the service and
 * the authority. A page carries the nonce of its style elements (Fluent UI writes its CSS rules at run time
 * into style elements it marks with the nonce the page hands it).
 */
export function consoleCsp(s: Pick<Settings, 'auth'>, styleNonce?: string): string {
  const authority = originOf(s.auth.authority);
  return [
    "default-src 'none'",
    "script-src 'self'",
    styleNonce ? `style-src 'self' 'nonce-${styleNonce}'` : "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${authority}`,
    // MSAL renews tokens silently in a hidden frame of the authority.
    `frame-src ${authority}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

export interface ConsoleConfig {
  configured: boolean;
  clientId: string | null;
  /** The sign-in authority, e.g. https://login.microsoftonline.com/organizations. */
  authority: string;
  /** The delegated scope of the service the console asks for. */
  apiScope: string;
  /**
   * Endpoints of an authority that is not HTTPS (the local identity provider): MSAL discovers metadata only
   * over HTTPS, so the console hands it these. Null for Entra ID, whose metadata MSAL discovers itself.
   */
  authorityMetadata: Record<string, string> | null;
}

export function consoleConfig(s: Pick<Settings, 'auth' | 'console'>): ConsoleConfig {
  const base = s.auth.authority.replace(/\/+$/, '');
  const tenant = s.console.authorityTenant;
  const authority = `${base}/${tenant}`;
  const local = base.startsWith('http:');
  return {
    configured: s.console.clientId !== undefined,
    clientId: s.console.clientId ?? null,
    authority,
    apiScope: s.console.apiScope,
    authorityMetadata: local
      ? {
          issuer: `${base}/{tenantid}/v2.0`,
          authorization_endpoint: `${authority}/oauth2/v2.0/authorize`,
          token_endpoint: `${authority}/oauth2/v2.0/token`,
          end_session_endpoint: `${authority}/oauth2/v2.0/logout`,
          jwks_uri: `${authority}/discovery/v2.0/keys`,
        }
      : null,
  };
}

function headers(csp: string, contentType: string, cacheControl: string): Record<string, string> {
  return {
    'content-type': contentType,
    'cache-control': cacheControl,
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'x-frame-options': 'DENY',
  };
}

const notFound = (csp: string): HttpResponseInit => ({
  status: 404,
  headers: headers(csp, 'text/plain; charset=utf-8', 'no-store'),
  body: 'Not found',
});

/** Where the built console was found (looked for until it is). */
let folderFound: string | undefined;

/** Serves /console and everything under it. */
export async function handleConsole(request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
  const log = loggerFor(context, { correlationId: correlationIdOf(request, context) });
  const { response, kind } = await consoleResponse(request, log);
  // The kind of file and the status only: never the path, which the caller chose.
  log.info('console request', { status: response.status ?? 200, kind });
  return response;
}

async function consoleResponse(
  request: HttpRequest,
  log: Logger,
): Promise<{ response: HttpResponseInit; kind: 'page' | 'asset' | 'config' | 'other' }> {
  const s = settings();
  const csp = consoleCsp(s);
  const { pathname } = new URL(request.url);
  if (/^\/console$/i.test(pathname))
    return {
      response: { status: 301, headers: { location: '/console/', 'cache-control': 'no-store' } },
      kind: 'page',
    };
  let rest: string;
  try {
    rest = decodeURIComponent(pathname.replace(/^\/console\/?/i, ''));
  } catch {
    return { response: notFound(csp), kind: 'other' };
  }
  if (rest === 'config.json')
    return {
      response: {
        status: 200,
        headers: headers(csp, TYPES['.json']!, 'no-cache'),
        body: JSON.stringify(consoleConfig(s)),
      },
      kind: 'config',
    };
  // GraphiQL runs any query a signed-in administrator types: it is served only where introspection is on.
  if (rest.toLowerCase() === GRAPHIQL_PAGE && !s.graphqlIntrospection) return { response: notFound(csp), kind: 'page' };
  folderFound ??= findConsoleFolder();
  const folder = folderFound;
  if (!folder) {
    log.warn('console not built', {});
    return {
      response: {
        status: 503,
        headers: headers(csp, 'text/plain; charset=utf-8', 'no-store'),
        body: 'The console is not part of this build (npm run build builds it).',
      },
      kind: 'other',
    };
  }
  const isAsset = rest.startsWith('assets/');
  const kind = isAsset ? 'asset' : 'page';
  // Files with an extension must exist; any other path is a page of the single-page application.
  const file = isAsset || path.extname(rest) !== '' ? path.resolve(folder, rest) : path.join(folder, INDEX);
  if (!file.startsWith(folder + path.sep) || rest.split('/').includes('..')) return { response: notFound(csp), kind };
  let body: Buffer;
  try {
    body = await fs.promises.readFile(file);
  } catch {
    return { response: notFound(csp), kind };
  }
  const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
  // A page is never stored (it carries a nonce of its own); a hashed asset never changes.
  const cache = isAsset
    ? `public, max-age=${YEAR_SECONDS}, immutable`
    : path.extname(file) === '.html'
      ? 'no-store'
      : 'no-cache';
  let pageCsp = csp;
  if (path.extname(file) === '.html' && body.includes(NONCE_PLACEHOLDER)) {
    // A new nonce for every page served (pages are never cached), in its meta tag and its CSP.
    const nonce = randomBytes(18).toString('base64');
    body = Buffer.from(body.toString('utf8').replaceAll(NONCE_PLACEHOLDER, nonce));
    pageCsp = consoleCsp(s, nonce);
  }
  return {
    response: {
      status: 200,
      headers: headers(pageCsp, type, cache),
      body: request.method === 'HEAD' ? undefined : body,
    },
    kind,
  };
}
