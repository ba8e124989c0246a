/**
 * Leased shares of the fleet's budgets (lib/limits/fleetShares.ts says why), after the Rate Limiting pattern of
 * the Azure Architecture Center and Google's Doorman: an instance with traffic for a budget key (a tenant's SCIM
 * budget, one of its integrations', the service's bulk request units, …) holds a lease on it. A tenant's leases
 * live in one small document of the `leases` container (pk = the tenant id, or `_service`; id `shares`) that
 * lists, per budget key, the instances holding it and when each lease ends. An instance's share of a key is the
 * budget divided by the instances with an unexpired lease on it. Every `renewMs` the instance renews, with one
 * write per document, the leases of the keys it used since the last renewal (in the background: a request is
 * admitted against the share the instance has now and never waits for the store), and lets the others lapse,
 * so an idle key costs nothing and a document nobody renews vanishes by the container's time to live. Every
 * write carries the entity tag of the document it changed (If-Match), so instances renewing at once converge:
 * the loser reads the document again and writes once more.
 *
 * A renewal that fails (the store unreachable, or 429: lease writes never wait out throttling) keeps a safe
 * share: the last one known, and at most the budget divided by the last known number of instances (at least
 * two: another may have started meanwhile), never the whole budget. A key seen for the first time is used at
 * the budget divided by the last known number of instances until its first renewal answers (a few ms), and a
 * document's first lease is renewed once early (after a quarter of `renewMs`), so instances that start on a key
 * at the same moment see each other at once.
 *
 * Cost per active tenant and instance: one replace of the small document per renewal (about 10 RU in the local
 * engine's meter: it indexes nothing), plus a point read (1 RU) and a second replace when another instance
 * wrote in between: 10 to 21 RU per `renewMs` (docs/security.md, "Budgets of the fleet"). */
import { randomBytes } from 'node:crypto';
import type { Collection, StoredDoc, WithEtag } from './store';
import { StoreError } from './errors';
import { atHighPriority } from './priority';
import type { ShareSource } from '../limits/fleetShares';

/** Wall-clock time (epoch ms, compared across instances) and a one-shot timer: real in the service, fake in tests. */
export interface LeaseClock {
  now(): number;
  setTimer(fn: () => void, ms: number): { cancel(): void };
}

export const REAL_LEASE_CLOCK: LeaseClock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

/** One document per tenant (or `_service`): per budget key, each holder's id → when its lease ends (epoch ms). */
export interface LeaseDoc extends StoredDoc {
  leases: Record<string, Record<string, number>>;
}

/** The document's id in its partition. */
export const LEASES_ID = 'shares';

export interface FleetShareOptions {
  /** How often an instance renews the leases of the keys it uses (FLEET_LEASE_RENEW_MS). */
  renewMs: number;
  /** How long a lease lasts unrenewed (FLEET_LEASE_MS): a stopped instance's share is taken over after it. */
  leaseMs: number;
  /** This process's id among the holders (unique per process). */
  instanceId: string;
  clock?: LeaseClock;
}

/** Writes of one renewal at most (each after reading the document another instance changed). */
const WRITE_ATTEMPTS = 3;

/** A budget key this instance uses: its share now and when it was last used. */
interface Held {
  fraction: number;
  usedAt: number;
}

/** The leases of one partition (a tenant's budgets, or the service's) this instance holds. */
interface Partition {
  pk: string;
  held: Map<string, Held>;
  /** The document as this instance last wrote or read it, with its entity tag. */
  doc?: WithEtag<LeaseDoc>;
  renewing: boolean;
  /** A budget key was added since the last renewal began: renew again at once when it ends. */
  added: boolean;
  /** Renewals written so far. */
  renewals: number;
}

/** A process id among lease holders: the platform's instance id (WEBSITE_INSTANCE_ID) when set, and a random part. */
export function leaseHolderId(env: NodeJS.ProcessEnv = process.env): string {
  const platform = env.WEBSITE_INSTANCE_ID?.slice(0, 16);
  return `${platform ? `${platform}-` : ''}${randomBytes(6).toString('hex')}`;
}

/**
 * The partition of a budget key and its name in the document: a key `tenant|rest` (an integration's) goes to its
 * tenant's document, so one write renews every budget of a tenant this instance uses.
 */
function placeOf(budget: string, key: string): { pk: string; name: string } {
  const bar = key.indexOf('|');
  const pk = (bar < 0 ? key : key.slice(0, bar)) || '_';
  return { pk, name: bar < 0 ? budget : `${budget}|${key.slice(bar + 1)}` };
}

export class FleetShares implements ShareSource {
  private readonly partitions = new Map<string, Partition>();
  private readonly clock: LeaseClock;
  /** Instances holding the budget key this instance renewed last: the share of a key not leased yet. */
  private lastCount = 1;
  private timer?: { cancel(): void };
  private stopped = false;

  constructor(
    private readonly leases: () => Collection<LeaseDoc>,
    private readonly options: FleetShareOptions,
  ) {
    this.clock = options.clock ?? REAL_LEASE_CLOCK;
  }

  /**
   * The fraction of `budget` for `key` this instance may use now; notes that the key is in use. Never waits.
   * A key `tenant|id` (an integration's budget) is leased in its tenant's document.
   */
  fraction(budget: string, key: string): number {
    const { pk, name } = placeOf(budget, key);
    const t = this.clock.now();
    let partition = this.partitions.get(pk);
    if (!partition) {
      partition = { pk, held: new Map(), renewing: false, added: false, renewals: 0 };
      this.partitions.set(pk, partition);
    }
    let held = partition.held.get(name);
    if (!held) {
      held = { fraction: 1 / this.lastCount, usedAt: t };
      partition.held.set(name, held);
      if (!this.stopped) {
        if (partition.renewing) partition.added = true;
        else void this.renew(partition);
        this.schedule();
      }
    }
    held.usedAt = t;
    return held.fraction;
  }

  /** Budget keys this instance holds a lease on now (the tests and the docs' cost figure). */
  heldKeys(): number {
    let n = 0;
    for (const partition of this.partitions.values()) n += partition.held.size;
    return n;
  }

  /** Stops renewing (the process ends); the leases lapse by themselves. */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer || this.stopped || this.partitions.size === 0) return;
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      this.tick();
    }, this.options.renewMs);
  }

  /** Renews the keys used since the last tick, one write per partition; forgets the others (their leases lapse). */
  private tick(): void {
    if (this.stopped) return;
    const t = this.clock.now();
    for (const [pk, partition] of this.partitions) {
      for (const [name, held] of partition.held)
        if (t - held.usedAt >= this.options.renewMs) partition.held.delete(name);
      if (partition.held.size === 0) this.partitions.delete(pk);
      else if (!partition.renewing) void this.renew(partition);
    }
    this.schedule();
  }

  private async renew(partition: Partition): Promise<void> {
    partition.renewing = true;
    partition.added = false;
    const me = this.options.instanceId;
    try {
      await atHighPriority(async () => {
        for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
          const base =
            attempt === 0 && partition.doc ? partition.doc : await this.leases().read(partition.pk, LEASES_ID);
          const t = this.clock.now();
          const leases: LeaseDoc['leases'] = {};
          // Every unexpired lease stays (other instances', and this one's on keys it no longer renews).
          for (const [name, holders] of Object.entries(base?.leases ?? {})) {
            const live = Object.entries(holders).filter(([, until]) => until > t);
            if (live.length > 0) leases[name] = Object.fromEntries(live);
          }
          for (const name of partition.held.keys()) leases[name] = { ...leases[name], [me]: t + this.options.leaseMs };
          const doc: LeaseDoc = { id: LEASES_ID, pk: partition.pk, leases };
          try {
            partition.doc = base
              ? await this.leases().replace(doc, base._etag, { retryThrottled: false })
              : await this.leases().create(doc, { retryThrottled: false });
          } catch (err) {
            // Another instance wrote first (or the document lapsed): read it again and write once more.
            if (err instanceof StoreError && ['preconditionFailed', 'conflict', 'notFound'].includes(err.failure)) {
              partition.doc = undefined;
              continue;
            }
            throw err;
          }
          for (const [name, held] of partition.held) {
            const count = Object.keys(leases[name] ?? {}).length;
            held.fraction = 1 / Math.max(1, count);
            this.lastCount = Math.max(1, count);
          }
          // Instances that took a key at the same moment (a flood's start) see each other soon, not a whole
          // renewal later: the first lease is renewed once early.
          if (++partition.renewals === 1) this.renewEarly(partition);
          return;
        }
        this.fallBack(partition);
      });
    } catch {
      this.fallBack(partition);
    } finally {
      partition.renewing = false;
    }
    if (partition.added && !this.stopped && this.partitions.get(partition.pk) === partition) void this.renew(partition);
  }

  private renewEarly(partition: Partition): void {
    if (this.stopped) return;
    this.clock.setTimer(
      () => {
        if (!this.stopped && !partition.renewing && this.partitions.get(partition.pk) === partition)
          void this.renew(partition);
      },
      Math.max(1, Math.floor(this.options.renewMs / 4)),
    );
  }

  /** The safe share while renewals fail: the last one, at most the budget over the last known instances (≥ 2). */
  private fallBack(partition: Partition): void {
    for (const held of partition.held.values())
      held.fraction = Math.min(held.fraction, 1 / Math.max(2, this.lastCount));
  }
}
