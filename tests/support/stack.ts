import path from 'node:path';
import { startLocalStack, type LocalStack, type StackOptions } from '../../devhost/stack';
import { startLocalFleet, type LocalFleet } from '../../devhost/fleet';
import { DEV_CLIENTS, SERVICE_SCOPE, type DevClient } from '../../devhost/devData';
import { bulkBudgetsFor } from '../../devhost/bulkBudgets';

export type TestStack = LocalStack & {
  /** Every log line the functions and the host wrote. */
  logs: string[];
  /** Base URL of the functions (http://localhost:<port>). */
  base: string;
  /** A real token from the IdP stand-in, over HTTP. */
  token(client?: DevClient, scope?: string): Promise<string>;
};

/** Patterns that must never appear in a log line: personal numbers, addresses/UPNs, tokens, secrets, document numbers used by tests. */
export const FORBIDDEN_IN_LOGS: Array<[string, RegExp]> = [
  ['a CPR-like number', /(?<![0-9A-Fa-f])\d{6}-?\d{4}(?![0-9A-Fa-f])/],
  ['an e-mail address or UPN', /[^\s"]@[^\s"]+\.[a-z]{2,}/i],
  ['a bearer token', /eyJ[A-Za-z0-9_-]{10,}\.|Bearer\s/],
  ['a client secret', /dev-[a-z0-9-]*secret/],
  ['a test document number', /DOC-SECRET|P1234567|N-[A-Z]{2}\b/],
];

export function leaksIn(lines: string[]): string[] {
  return lines.flatMap((line) =>
    FORBIDDEN_IN_LOGS.filter(([, re]) => re.test(line)).map(([what]) => `${what} in: ${line.slice(0, 300)}`),
  );
}

/**
 * Bulk work's request-unit budgets in tests that do not test pacing: beyond what any test spends, also when the
 * test gives the engine a small budget (the local stack would pace bulk work at a share of it), so an import of a
 * few thousand identities does not take minutes. The pacer still sees every bulk request. A test of pacing sets
 * both BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT and BULK_REQUEST_UNITS_PER_SECOND.
 */
const UNPACED = bulkBudgetsFor(undefined);

/**
 * The local stack for a test. The engine's mode is `serverless` unless `cosmosMode` says `provisioned` (a test
 * that relies on request priority being honoured says so).
 */
export async function startTestStack(options: StackOptions = {}): Promise<TestStack> {
  const logs: string[] = [];
  const stack = await startLocalStack(withLogs(options, logs));
  return asTestStack(stack, logs, options);
}

export type TestFleet = TestStack & Omit<LocalFleet, keyof LocalStack>;

/**
 * The local stack with `instances` function hosts, each in a process of its own over the shared parts of this
 * process, behind a front on `base` (devhost/fleet.ts). The instances run the TypeScript sources as they are
 * (tests/support/fleetInstance.js). `kill(index)` ends one with SIGKILL while the others go on. The log lines of
 * every instance are collected and checked for leaks as a single stack's are.
 */
export async function startTestFleet(options: StackOptions & { instances: number }): Promise<TestFleet> {
  const logs: string[] = [];
  const fleet = await startLocalFleet({
    ...withLogs(options, logs),
    instances: options.instances,
    runner: {
      entry: path.join(__dirname, 'fleetInstance.js'),
      frontEntry: path.join(__dirname, 'fleetFront.js'),
      execArgv: [],
    },
  });
  return {
    ...asTestStack(fleet, logs, options),
    instances: fleet.instances,
    timerOwner: fleet.timerOwner,
    timerRuns: fleet.timerRuns,
    kill: fleet.kill,
  };
}

function withLogs(options: StackOptions, logs: string[]): StackOptions {
  return {
    ...options,
    env: { ...UNPACED, ...options.env },
    log: (level, message) => {
      logs.push(message);
      options.log?.(level, message);
    },
  };
}

function asTestStack(stack: LocalStack, logs: string[], options: StackOptions): TestStack {
  const cache = new Map<string, string>();
  return {
    ...stack,
    logs,
    stop: async () => {
      const gaps = stack.cosmosIndexGaps();
      await stack.stop();
      // Every query the service issued in this run must be one the containers' indexing policies serve
      // (lib/store/containers.ts): a new filter or ORDER BY path without its index fails here.
      if (gaps.length > 0)
        throw new Error(
          `Queries the indexing policy cannot serve:\n${gaps
            .map((g) => `${g.container}: ${g.query}\n  ${g.gaps.join('\n  ')}`)
            .join('\n')}`,
        );
      const leaks = leaksIn(logs);
      if (leaks.length > 0) throw new Error(`Sensitive data in logs:\n${leaks.slice(0, 10).join('\n')}`);
      // Under LOG_LEVEL=warn or error a run without a problem may rightly write nothing.
      const quiet = ['warn', 'error'].includes(options.env?.LOG_LEVEL ?? '');
      if (logs.length === 0 && !quiet)
        throw new Error('No log line was captured: the leak check would not see anything');
    },
    base: stack.env.PUBLIC_BASE_URL ?? stack.host.url,
    async token(client: DevClient = DEV_CLIENTS.scim, scope = SERVICE_SCOPE): Promise<string> {
      const key = `${client.tenantId}|${client.clientId}|${scope}`;
      const hit = cache.get(key);
      if (hit) return hit;
      const res = await fetch(`${stack.idp.url}/${client.tenantId}/oauth2/v2.0/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.secret,
          scope,
        }).toString(),
      });
      if (res.status !== 200) throw new Error(`token request failed with ${res.status}`);
      const token = ((await res.json()) as { access_token: string }).access_token;
      cache.set(key, token);
      return token;
    },
  };
}

export interface JsonResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function call<T = Record<string, unknown>>(
  url: string,
  init: RequestInit & { token?: string; json?: unknown } = {},
): Promise<JsonResponse<T>> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    if (!headers.has('content-type')) headers.set('content-type', 'application/scim+json');
  }
  const res = await fetch(url, { ...init, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}
