/**
 * kill -9 of the service while a staged import's job runs: the stack runs in a process of its own over a
 * data folder; once completeImport answered the run id and the job has applied part of the set, the process
 * is killed (its step stops mid-way, its queue message is lost with it). A new process on the same data
 * continues the job with no client sending anything: the run reaches COMPLETED within 240 s, with every
 * identity counted once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChildStack, type ChildStack } from '../support/childStack';
import { DEV_CLIENTS, SERVICE_SCOPE } from '../../devhost/devData';
import { RUN, stageAndComplete, type Run } from '../support/importSets';

type Gql<T> = { data?: T | null; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };

const N = 20_000;
const PART = 2_000;
/** Small steps: the job takes many, so the kill lands in the middle of it. */
const ENV = { IMPORT_STEP_MAX_WRITES: '500' };

async function token(stack: ChildStack): Promise<string> {
  const client = DEV_CLIENTS.admin;
  const res = await fetch(`${stack.idp}/${client.tenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.secret,
      scope: SERVICE_SCOPE,
    }).toString(),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function gql<T>(stack: ChildStack, bearer: string, query: string, variables: unknown): Promise<T> {
  const res = await fetch(`${stack.base}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as Gql<T>;
  if (!body.data) throw new Error(JSON.stringify(body.errors).slice(0, 300));
  return body.data;
}

describe('kill -9 while a staged import is applied', () => {
  let stack: ChildStack | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'staged-kill-'));
  afterAll(async () => {
    await stack?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a new process on the same data completes the run within 240 s, with no client', async () => {
    stack = await startChildStack(dataDir, ENV);
    const first = stack;
    let bearer = await token(stack);
    const runId = await stageAndComplete(
      (query, variables) => gql(first, bearer, query, variables),
      'Killed',
      'K',
      N,
      PART,
    );
    // Once part of the set is applied, the process is killed.
    for (;;) {
      const r = (await gql<{ importRun: Run }>(stack, bearer, RUN, { id: runId })).importRun;
      if ((r.progress?.applied ?? 0) > 0) break;
      if (r.status === 'COMPLETED') throw new Error('the job ended before the process could be killed');
      await new Promise((res) => setTimeout(res, 20));
    }
    await stack.kill();
    const killedAt = Date.now();

    stack = await startChildStack(dataDir, ENV);
    bearer = await token(stack);
    const stopped = (await gql<{ importRun: Run }>(stack, bearer, RUN, { id: runId })).importRun;
    expect(stopped.status).toBe('RUNNING');
    expect(stopped.progress?.applied).toBeLessThan(N);
    let r: Run;
    for (;;) {
      r = (await gql<{ importRun: Run }>(stack, bearer, RUN, { id: runId })).importRun;
      if (!['QUEUED', 'RUNNING'].includes(r.status) || Date.now() - killedAt > 240_000) break;
      await new Promise((res) => setTimeout(res, 500));
    }
    const seconds = (Date.now() - killedAt) / 1000;
    console.log(
      `kill -9 after ${stopped.progress?.applied} of ${N} applied: ${r.status} ${seconds.toFixed(0)} s later`,
    );
    expect(r).toMatchObject({
      status: 'COMPLETED',
      importCounts: { created: N, updated: 0, deleted: 0, unchanged: 0 },
      progress: { applied: N, total: N },
    });
    expect(seconds).toBeLessThan(240);
  }, 360_000);
});
