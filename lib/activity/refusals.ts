/**
 * Refused SCIM requests, kept per integration for its administrator (the source's activity): when, which
 * operation (`PATCH /Users/{id}`, never the URL), the status and scimType, the service's own detail, the
 * externalId the body named, the id of the User it named and the correlation id. Never a value the request
 * carried otherwise.
 *
 * A record is one small item of the `activity` container in the integration's partition, written once
 * (at most four index terms and about 1.2 KB: at most 6 RU) and removed by its time to live. A connector that fails on
 * every request cannot fill the store: per integration and minute an instance records at most
 * ACTIVITY_REFUSALS_PER_MINUTE refusals one by one and counts the rest in one summary item, written at most
 * once a second. Nor can a tenant with many integrations (disabled ones too): all its integrations together
 * are recorded at most ACTIVITY_TENANT_REFUSALS_PER_MINUTE a minute for the whole fleet (each instance records
 * its leased share of it, lib/limits/fleetShares.ts), and the rest are counted in one summary of the tenant,
 * kept in the partition of the integration whose refusal first passed the bound. Recording never fails the
 * answer: a failed or slow write is logged (without values) and the SCIM answer goes out as it was.
 */
import { randomBytes } from 'node:crypto';
import type { Store, StoredDoc } from '../store/store';
import { StoreError } from '../store/errors';
import { partitionKey } from '../identities/model';
import { ATTRIBUTE } from '../identities/attributes';
import { isGuid } from '../util/guid';
import { maskNumberRuns } from '../util/numberRuns';
import type { Logger } from '../log/logger';
import { entryKey, type ActivityEntry, type ActivityStream } from './entries';
import { refusalsNewestFirst } from '../store/queries/activity';
import { FLEET_BUDGET, WHOLE_BUDGET, type ShareSource } from '../limits/fleetShares';
import { actionOf } from './actions';

/** What the SCIM layer knows of a refused request. */
export interface Refusal {
  tenantId: string;
  integrationId: string;
  method: string;
  /** Whether the request named one User (`/Users/{id}`) rather than the collection. */
  namedUser: boolean;
  status: number;
  scimType?: string;
  detail: string;
  /** The parsed body, when the request's body was read before it was refused. */
  body?: unknown;
  /** The id the request named, when it names a User of the integration (not for 404). */
  identityId?: string;
  correlationId: string;
}

interface RefusalDoc extends StoredDoc {
  kind: 'refusal';
  operation: string;
  status: number;
  scimType?: string;
  detail: string;
  externalId?: string;
  identityId?: string;
  correlationId: string;
  ttl: number;
}

/** The refusals of one minute beyond the recording limit, counted by one instance. */
interface RefusalCountDoc extends StoredDoc {
  kind: 'refusalCount';
  /** `tenant`: refusals of any of the tenant's integrations beyond the tenant's bound (else the integration's). */
  scope?: 'tenant';
  count: number;
  /** The last refusal counted. */
  lastAt: string;
  ttl: number;
}

type ActivityDoc = RefusalDoc | RefusalCountDoc;

/** The longest detail kept, in UTF-8 bytes (the service's texts are shorter; this keeps a write at most 6 RU). */
export const MAX_DETAIL_BYTES = 320;
/** The longest externalId kept, in UTF-8 bytes (the service takes no longer one); a longer one is left out. */
export const MAX_EXTERNAL_ID_BYTES = ATTRIBUTE.externalId.maxLength;
/** How long a SCIM answer waits for its refusal's record at most; a slower write goes on without it. */
export const RECORD_WAIT_MS = 250;
/** A summary of counted refusals is written at most this often per integration and instance. */
export const COUNT_FLUSH_MS = 1000;
/** Failed writes of one summary after which its count is given up (it is logged). */
const COUNT_WRITE_ATTEMPTS = 3;
/** Integrations with a minute window held per instance before past minutes are dropped. */
const MAX_WINDOWS = 10_000;

const OPERATION_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
export const COUNTED_OPERATION = 'SCIM requests over the recording limit';
export const COUNTED_CODE = 'REFUSALS_COUNTED';

/** `POST /Users`, `PATCH /Users/{id}`: the operation, never the URL the caller sent. */
export function operationOf(method: string, namedUser: boolean): string {
  const verb = OPERATION_METHODS.has(method.toUpperCase()) ? method.toUpperCase() : 'OTHER';
  return `${verb} /Users${namedUser ? '/{id}' : ''}`;
}

/** The externalId of a SCIM body when it is a string of 1 to MAX_EXTERNAL_ID_BYTES bytes, its number runs masked. */
export function recordableExternalId(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const value = (body as Record<string, unknown>).externalId;
  if (typeof value !== 'string' || value === '') return undefined;
  // Repeated under the service's number rule, as every echo is: a six-digit run (a CPR number sent as the key) is masked.
  return Buffer.byteLength(value, 'utf8') <= MAX_EXTERNAL_ID_BYTES ? maskNumberRuns(value) : undefined;
}

/** The text cut to MAX_DETAIL_BYTES at a character boundary, an ellipsis marking the cut. */
function clip(text: string): string {
  if (Buffer.byteLength(text, 'utf8') <= MAX_DETAIL_BYTES) return text;
  let out = '';
  for (const ch of text) {
    if (Buffer.byteLength(out + ch, 'utf8') > MAX_DETAIL_BYTES - 3) break;
    out += ch;
  }
  return `${out}…`;
}

/** The record of a refusal made at `now` (epoch ms), living `retentionDays`. */
export function refusalDoc(refusal: Refusal, now: number, retentionDays: number): RefusalDoc {
  const externalId = recordableExternalId(refusal.body);
  const identityId = refusal.namedUser && isGuid(refusal.identityId) ? refusal.identityId.toLowerCase() : undefined;
  return {
    id: entryKey(now, randomBytes(6).toString('hex')),
    pk: partitionKey(refusal.tenantId, refusal.integrationId),
    kind: 'refusal',
    operation: operationOf(refusal.method, refusal.namedUser),
    status: refusal.status,
    ...(refusal.scimType ? { scimType: refusal.scimType } : {}),
    detail: clip(refusal.detail),
    ...(externalId !== undefined ? { externalId } : {}),
    ...(identityId !== undefined ? { identityId } : {}),
    correlationId: refusal.correlationId,
    ttl: retentionDays * 86_400,
  };
}

const failureOf = (err: unknown): string => (err instanceof StoreError ? err.failure : 'unexpected');

/** Waits for `work` at most `ms`; what it does after that is its own affair (it handles its own failure). */
async function within(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Counted {
  doc: RefusalCountDoc;
  written: number;
  failures: number;
  writing: boolean;
  timer?: NodeJS.Timeout;
  log: Logger;
}

interface MinuteWindow {
  minute: number;
  recorded: number;
  counted?: Counted;
}

export interface RefusalLimits {
  retentionDays: number;
  /** Refusals recorded one by one per integration per minute on this instance. */
  perMinute: number;
  /** Refusals recorded one by one per tenant per minute, all its integrations, for the fleet (default: no bound). */
  tenantPerMinute?: number;
}

export class RefusalLog {
  private readonly windows = new Map<string, MinuteWindow>();
  /** Tells this instance's summaries from another's (each counts its own refusals). */
  private readonly instance = randomBytes(4).toString('hex');

  constructor(
    private readonly store: Store,
    private readonly limits: RefusalLimits,
    private readonly now: () => number = Date.now,
    private readonly flushMs: number = COUNT_FLUSH_MS,
    /** The fleet's shares of the tenants' bounds (default: this instance has them whole). */
    private readonly fleet: ShareSource = WHOLE_BUDGET,
  ) {}

  private col() {
    return this.store.collection<ActivityDoc>('activity');
  }

  /** Records a refusal, or counts it when its integration is over the minute's limit. Never throws. */
  async record(refusal: Refusal, log: Logger): Promise<void> {
    try {
      const now = this.now();
      const pk = partitionKey(refusal.tenantId, refusal.integrationId);
      const window = this.windowOf(pk, now);
      if (window.recorded >= this.limits.perMinute) return this.count(window, pk, now, log);
      const tenant = this.windowOf(`tenant|${refusal.tenantId}`, now);
      if (tenant.recorded >= this.tenantLimit(refusal.tenantId)) return this.count(tenant, pk, now, log, 'tenant');
      window.recorded++;
      tenant.recorded++;
      const doc = refusalDoc(refusal, now, this.limits.retentionDays);
      // Throttling fails the write at once: a refusal's record never waits out the store's busy time.
      const write = this.col()
        .create(doc, { retryThrottled: false })
        .then(
          () => undefined,
          (err: unknown) =>
            log.warn('refused request not recorded', { status: refusal.status, failure: failureOf(err) }),
        );
      await within(write, RECORD_WAIT_MS);
    } catch (err) {
      log.warn('refused request not recorded', { status: refusal.status, failure: failureOf(err) });
    }
  }

  /** This instance's part of the tenant's bound for the fleet. */
  private tenantLimit(tenantId: string): number {
    const bound = this.limits.tenantPerMinute;
    if (bound === undefined) return Number.POSITIVE_INFINITY;
    return Math.floor(bound * this.fleet.fraction(FLEET_BUDGET.refusalRecords, tenantId));
  }

  private windowOf(pk: string, now: number): MinuteWindow {
    const minute = Math.floor(now / 60_000);
    let window = this.windows.get(pk);
    if (window?.minute === minute) return window;
    if (this.windows.size >= MAX_WINDOWS)
      for (const [key, w] of this.windows) if (w.minute !== minute) this.windows.delete(key);
    window = { minute, recorded: 0 };
    this.windows.set(pk, window);
    return window;
  }

  private count(window: MinuteWindow, pk: string, now: number, log: Logger, scope?: 'tenant'): void {
    const at = new Date(now).toISOString();
    window.counted ??= {
      doc: {
        id: entryKey(now, `${scope === 'tenant' ? 't' : 'n'}-${this.instance}`),
        pk,
        kind: 'refusalCount',
        ...(scope ? { scope } : {}),
        count: 0,
        lastAt: at,
        ttl: this.limits.retentionDays * 86_400,
      },
      written: 0,
      failures: 0,
      writing: false,
      log,
    };
    const counted = window.counted;
    counted.doc.count++;
    counted.doc.lastAt = at;
    this.schedule(counted, counted.written === 0 && counted.failures === 0 ? 0 : this.flushMs);
  }

  private schedule(counted: Counted, ms: number): void {
    if (counted.timer || counted.writing || counted.failures >= COUNT_WRITE_ATTEMPTS) return;
    counted.timer = setTimeout(() => void this.flush(counted), ms);
    counted.timer.unref();
  }

  private async flush(counted: Counted): Promise<void> {
    counted.timer = undefined;
    counted.writing = true;
    const doc = { ...counted.doc };
    try {
      await this.col().upsert(doc);
      counted.written = doc.count;
    } catch (err) {
      counted.failures++;
      counted.log.warn('refused requests not counted', { count: doc.count - counted.written, failure: failureOf(err) });
    } finally {
      counted.writing = false;
    }
    if (counted.doc.count > counted.written) this.schedule(counted, this.flushMs);
  }
}

function entryOf(doc: ActivityDoc): ActivityEntry {
  const base = {
    key: doc.id,
    at: doc.id.slice(0, 24),
    outcome: 'refused' as const,
    changedAttributes: null,
    action: actionOf(doc.kind === 'refusal' ? doc.operation : COUNTED_OPERATION),
    runId: null,
    counts: null,
    durationMs: null,
    actor: null,
  };
  if (doc.kind === 'refusalCount')
    return {
      ...base,
      operation: COUNTED_OPERATION,
      httpStatus: null,
      scimType: null,
      code: COUNTED_CODE,
      detail:
        doc.scope === 'tenant'
          ? `${doc.count} more refused request(s) of the organization's SCIM integrations in this minute, the last at ${doc.lastAt}: counted, not recorded one by one (ACTIVITY_TENANT_REFUSALS_PER_MINUTE)`
          : `${doc.count} more refused request(s) in this minute, the last at ${doc.lastAt}: counted, not recorded one by one (ACTIVITY_REFUSALS_PER_MINUTE)`,
      externalId: null,
      identityId: null,
      correlationId: null,
    };
  return {
    ...base,
    operation: doc.operation,
    httpStatus: doc.status,
    scimType: doc.scimType ?? null,
    code: null,
    detail: doc.detail,
    externalId: doc.externalId ?? null,
    identityId: doc.identityId ?? null,
    correlationId: doc.correlationId,
  };
}

/** The refusals of one integration's partition, newest first. */
export function refusalStream(store: Store, pk: string): ActivityStream {
  return async (query) => {
    const docs = await store
      .collection<ActivityDoc>('activity')
      .all(
        refusalsNewestFirst(
          pk,
          { before: query.before, since: query.since, externalId: query.externalId },
          query.limit,
        ),
        { maxItemCount: query.limit },
      );
    return docs.map(entryOf);
  };
}
