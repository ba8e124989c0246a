/**
 * kill -9 of one of three instances while it runs a step of a staged import's job (devhost/fleet.ts, each
 * instance in a process of its own behind the front, every one taking messages from the background queue and
 * the timers on one of them): the step stops mid-way and its queue message stays invisible with the dead
 * instance, yet the survivors complete the job with no client sending anything, within 240 s of the kill, and
 * every identity of the set is there once (no acknowledged part lost).
 *
 * The instance to kill is the one running a step: the host logs `Executing 'backgroundWork'` when an instance
 * takes a message and `Executed …` when it is done, so an invocation with the first line and not yet the second
 * is running now (only the import's job has queued work here).
 */
import { call, startTestFleet, type TestFleet } from '../../support/stack';
import { DEV_CLIENTS } from '../../../devhost/devData';
import { RUN, stageAndComplete, type Run } from '../../support/importSets';

type Gql<T> = { data?: T | null; errors?: Array<{ message: string }> };

const N = 20_000;
const PART = 2_000;
const SOURCE = 'FleetKilled';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Instances with a background-work invocation begun and not finished, newest first. An invocation is finished
 * once it logs its outcome (`background work done`, `… deferred`, `… put back`, correlated by its invocation
 * id): a step enqueues the job's next step before it logs that it is done, so an older invocation still open in
 * the host's log may already have handed the job on and no longer hold it.
 */
function running(logs: string[]): number[] {
  const open = new Map<string, number>();
  for (const line of logs) {
    const begun = /^instance (\d+): Executing 'backgroundWork' \(invocation ([^,]+),/.exec(line);
    if (begun) open.set(begun[2]!, Number(begun[1]));
    const ended = /^instance \d+: Executed 'backgroundWork' \([A-Za-z]+, invocation ([^)]+)\)/.exec(line);
    if (ended) open.delete(ended[1]!);
    if (/background work (done|deferred|put back)/.test(line)) {
      const correlated = /"correlationId":"([^"]+)"/.exec(line);
      if (correlated) open.delete(correlated[1]!);
    }
  }
  return [...open.values()].reverse();
}

describe('kill -9 of one of three instances while it runs a staged import step', () => {
  let fleet: TestFleet;
  let bearer: string;

  const gql = async <T>(query: string, variables: unknown): Promise<T> => {
    const res = await call<Gql<T>>(`${fleet.base}/graphql`, {
      method: 'POST',
      token: bearer,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    if (!res.body?.data) throw new Error(`GraphQL ${res.status}: ${res.text.slice(0, 300)}`);
    return res.body.data;
  };

  beforeAll(async () => {
    fleet = await startTestFleet({
      instances: 3,
      // The resume timer (every minute) runs on one instance, as Azure's timer singleton does.
      runTimersOnSchedule: true,
      env: {
        // Small steps: the job takes many, so the kill lands in the middle of it.
        IMPORT_STEP_MAX_WRITES: '500',
        GRAPHQL_REQUESTS_PER_MINUTE: '6000',
      },
    });
    bearer = await fleet.token(DEV_CLIENTS.admin);
  }, 180_000);
  afterAll(async () => {
    await fleet?.stop();
  }, 60_000);

  it('the survivors complete the job within 240 s with no client, every identity there once', async () => {
    const runId = await stageAndComplete(gql, SOURCE, 'FK', N, PART);

    // Once part of the set is applied, the instance running the job's step now is killed.
    let victim: number | undefined;
    for (;;) {
      const r = (await gql<{ importRun: Run }>(RUN, { id: runId })).importRun;
      if (r.status === 'COMPLETED') throw new Error('the job ended before an instance could be killed');
      if ((r.progress?.applied ?? 0) > 0) {
        victim = running(fleet.logs)[0];
        if (victim !== undefined) break;
      }
      await sleep(20);
    }
    await fleet.kill(victim);
    const killedAt = Date.now();
    const logsAtKill = fleet.logs.length;
    const stopped = (await gql<{ importRun: Run }>(RUN, { id: runId })).importRun;
    expect(stopped.status).toBe('RUNNING');
    expect(stopped.progress?.applied).toBeLessThan(N);

    let r: Run;
    for (;;) {
      r = (await gql<{ importRun: Run }>(RUN, { id: runId })).importRun;
      if (!['QUEUED', 'RUNNING'].includes(r.status) || Date.now() - killedAt > 240_000) break;
      await sleep(500);
    }
    const seconds = (Date.now() - killedAt) / 1000;
    // Which instances ran the job's steps after the kill (the survivors only).
    const after = new Set(
      fleet.logs
        .slice(logsAtKill)
        .filter((l) => l.includes('background work done') && l.includes('import'))
        .map((l) => /^instance (\d+):/.exec(l)?.[1]),
    );
    console.log(
      `kill -9 of instance ${victim} after ${stopped.progress?.applied} of ${N} applied: ${r.status} ` +
        `${seconds.toFixed(0)} s later; instances that logged import steps: ${[...after].join(', ')}`,
    );
    expect(r).toMatchObject({
      status: 'COMPLETED',
      importCounts: { created: N, updated: 0, deleted: 0, unchanged: 0 },
      progress: { applied: N, total: N },
    });
    expect(seconds).toBeLessThan(240);
    expect(fleet.instances().find((i) => i.index === victim)?.alive).toBe(false);
    // The victim held the job's step: the survivors' resume timer handed the job to the queue again.
    const resumed = fleet.logs
      .slice(logsAtKill)
      .filter((l) => l.includes('import jobs examined') && /"resumed":[1-9]/.test(l));
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed.every((l) => !l.startsWith(`instance ${victim}:`))).toBe(true);
    expect(after.has(String(victim))).toBe(false);

    // Every identity of the set is there, once: read back through the front, page by page.
    const seen = new Set<string>();
    let listed = 0;
    let after_: string | null = null;
    do {
      const page: {
        businessIdentities: { nodes: Array<{ externalId: string }>; endCursor: string | null; hasNextPage: boolean };
      } = await gql(
        'query($s: String!, $a: String) { businessIdentities(source: $s, first: 500, after: $a) { nodes { externalId } endCursor hasNextPage } }',
        { s: SOURCE, a: after_ },
      );
      for (const node of page.businessIdentities.nodes) seen.add(node.externalId);
      listed += page.businessIdentities.nodes.length;
      after_ = page.businessIdentities.hasNextPage ? page.businessIdentities.endCursor : null;
    } while (after_ !== null);
    expect(listed).toBe(N);
    expect(seen.size).toBe(N);
    for (let i = 0; i < N; i += 997) expect(seen.has(`FK-${i}`)).toBe(true);
  }, 420_000);
});
