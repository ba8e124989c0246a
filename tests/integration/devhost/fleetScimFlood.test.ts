/**
 * An integration's SCIM budget on a real fleet of three instances (devhost/fleet.ts, each in a process of its own
 * behind the front, as `npm start -- --instances 3` runs it): a flood of one integration through the front is
 * accepted at no more than 1.25× its budget, in every lease-length window; kill -9 of one instance during the
 * flood leaves its share to the survivors within the lease time (its lease lapses unrenewed), and the accepted
 * rate never passes 1.25× the budget while that happens.
 *
 * How we know it would fail on per-instance budgets: run once with lib/services.ts giving the limiters
 * WHOLE_BUDGET instead of the leased shares (each instance admitting the whole 20/s), it accepted 64.2/s on three
 * instances (3.2×), 40.6/s on the two survivors and 236 in the busiest lease-length window, and failed; with the
 * leases: 18.8/s, 21.6/s and 71.
 */
import { call, startTestFleet, type TestFleet } from '../../support/stack';
import { DEV_CLIENTS } from '../../../devhost/devData';

const BUDGET = 20;
/** The integration's burst (budgets.ts: twice its rate per second). */
const BURST = 2 * BUDGET;
const LEASE_MS = 3_000;
/**
 * Senders through the front: a refusal over the budget is held about a second (the busy-refusal pacing), so
 * every sender that is refused waits; 60 of them offer well over three budgets, enough to show a multiplication.
 */
const SENDERS = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Accepted requests of a time range [from, to), in ms since the epoch. */
const within = (accepted: number[], from: number, to: number) => accepted.filter((t) => t >= from && t < to).length;

/** The largest count of accepted requests in any window of `windowMs` starting in [from, to - windowMs]. */
function busiestWindow(accepted: number[], from: number, to: number, windowMs: number): number {
  let most = 0;
  for (let start = from; start + windowMs <= to; start += 100)
    most = Math.max(most, within(accepted, start, start + windowMs));
  return most;
}

describe('a SCIM flood of one integration on three instances', () => {
  let fleet: TestFleet;

  beforeAll(async () => {
    fleet = await startTestFleet({
      instances: 3,
      env: {
        SCIM_RATE_LIMIT_PER_SECOND: String(BUDGET),
        // The tenant's budget is far above: the integration's is the one that holds.
        SCIM_TENANT_RATE_LIMIT_PER_SECOND: '100000',
        FLEET_LEASE_MS: String(LEASE_MS),
        FLEET_LEASE_RENEW_MS: '1000',
        LOG_LEVEL: 'warn',
      },
    });
  }, 180_000);
  afterAll(async () => {
    await fleet?.stop();
  }, 60_000);

  it('is accepted at ≤ 1.25× the budget; after kill -9 of one instance the survivors take its share within the lease time', async () => {
    const token = await fleet.token(DEV_CLIENTS.scim);
    /** When each accepted answer came (ms since the epoch), and every other status seen. */
    const accepted: number[] = [];
    const others: string[] = [];
    let flooding = true;
    const sender = async () => {
      while (flooding) {
        // An id that cannot exist: answered 404 after admission, without a store request.
        const res = await call(`${fleet.base}/scim/v2/Users/no%23such`, { token }).catch(() => undefined);
        if (res?.status === 404) accepted.push(Date.now());
        else if (res?.status !== 429) others.push(String(res?.status ?? 'connection lost'));
      }
    };
    const start = Date.now();
    const senders = Array.from({ length: SENDERS }, sender);

    // 1. Three instances share the budget: 14 s of flood, counted after the first second (the burst's).
    await sleep(15_000);
    const before = { from: start + 1_000, to: Date.now() };
    const victim = fleet.instances()[1]!.index;
    await fleet.kill(victim);
    const killedAt = Date.now();
    // 2. The survivors: the victim's lease lapses within LEASE_MS, the next renewal (1 s) takes its share.
    await sleep(LEASE_MS + 1_000 + 8_000);
    const end = Date.now();
    flooding = false;
    await Promise.all(senders);

    const seconds = (from: number, to: number) => (to - from) / 1000;
    const rateBefore = within(accepted, before.from, before.to) / seconds(before.from, before.to);
    const takenOver = { from: killedAt + LEASE_MS + 1_000, to: end };
    const rateAfter = within(accepted, takenOver.from, takenOver.to) / seconds(takenOver.from, takenOver.to);
    const rateWhole = within(accepted, before.from, end) / seconds(before.from, end);
    // Windows after the first second: at the very start each instance, knowing no other yet, may spend a burst.
    const busiest = busiestWindow(accepted, start + 1_000, end, LEASE_MS);
    const first = within(accepted, start, start + LEASE_MS);
    console.log(
      `budget ${BUDGET}/s: ${rateBefore.toFixed(1)}/s on three, ${rateAfter.toFixed(1)}/s on two after the lease time, ` +
        `${rateWhole.toFixed(1)}/s over the whole flood; busiest ${LEASE_MS} ms: ${busiest} accepted ` +
        `(${first} in the first ${LEASE_MS} ms)`,
    );

    // Only requests given to the killed instance may fail otherwise, as the front's 502 or a cut connection.
    expect(others.filter((s) => s !== '502' && s !== 'connection lost')).toEqual([]);
    // The flood was a flood: far more was asked than the budget.
    expect(accepted.length).toBeGreaterThan(0);
    // On three instances, and over the whole flood (the kill included): at most 1.25× the budget.
    expect(rateBefore).toBeLessThanOrEqual(1.25 * BUDGET);
    expect(rateWhole).toBeLessThanOrEqual(1.25 * BUDGET);
    // No lease-length window (also the one of the kill) past 1.25× the budget, beyond the burst.
    expect(busiest).toBeLessThanOrEqual(1.25 * BUDGET * (LEASE_MS / 1000) + BURST);
    // The survivors took the victim's share: the whole budget again, within the lease time and one renewal.
    expect(rateAfter).toBeGreaterThanOrEqual(0.8 * BUDGET);
    expect(rateAfter).toBeLessThanOrEqual(1.25 * BUDGET);
  }, 120_000);
});
