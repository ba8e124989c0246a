/*
 * Tenant A's SCIM client for bench:fairness, in a process of its own (forked by fairnessBench.ts; it stands for
 * another customer's machines, as tenant B's does): the benchmark's own process also runs the local fleet's
 * front and the stand-ins, and A's timings taken there would include that process's other work. Receives
 * windows to measure, one at a time; each answers with every request's time and status.
 */

/** One window of A's mix: `rounds` rounds, or (without) until told to stop after at least `minRounds`. */
export interface TenantAWindow {
  kind: 'window';
  base: string;
  token: string;
  ids: string[];
  externalIds: string[];
  rounds?: number;
  minRounds?: number;
  /** Pause after each round (a SCIM client paced below its integration's rate limit). */
  pauseMs: number;
}
export type ToTenantA = TenantAWindow | { kind: 'stop' };

export interface TenantAWindowResult {
  times: number[];
  statuses: Record<string, number>;
}

async function send(w: TenantAWindow, method: string, p: string, body?: unknown): Promise<number> {
  const res = await fetch(`${w.base}/scim/v2${p}`, {
    method,
    headers: { authorization: `Bearer ${w.token}`, 'content-type': 'application/scim+json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** One round of the mix: GET by id, filter `externalId eq`, PATCH of the family name. */
async function round(w: TenantAWindow, i: number, times: number[], statuses: Map<number, number>): Promise<void> {
  const k = i % w.ids.length;
  const steps: Array<() => Promise<number>> = [
    () => send(w, 'GET', `/Users/${w.ids[k]}`),
    () => send(w, 'GET', `/Users?filter=${encodeURIComponent(`externalId eq "${w.externalIds[k]}"`)}`),
    () =>
      send(w, 'PATCH', `/Users/${w.ids[k]}`, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'Replace', path: 'name.familyName', value: `F${i}` }],
      }),
  ];
  for (const step of steps) {
    const t = performance.now();
    const status = await step();
    times.push(performance.now() - t);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
}

let stopped = false;

async function measure(w: TenantAWindow): Promise<TenantAWindowResult> {
  stopped = false;
  const times: number[] = [];
  const statuses = new Map<number, number>();
  const more = (i: number) => (w.rounds !== undefined ? i < w.rounds : !stopped || i < (w.minRounds ?? 0));
  for (let i = 0; more(i); i++) {
    await round(w, i, times, statuses);
    await new Promise((r) => setTimeout(r, w.pauseMs));
  }
  return { times, statuses: Object.fromEntries([...statuses].map(([s, n]) => [String(s), n])) };
}

if (require.main === module) {
  process.on('message', (message: ToTenantA) => {
    if (message.kind === 'stop') {
      stopped = true;
      return;
    }
    measure(message).then(
      (result) => process.send?.(result),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
  process.on('disconnect', () => process.exit(0));
}
