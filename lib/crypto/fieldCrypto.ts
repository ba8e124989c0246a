/**
 * Field encryption at the store's boundary: every document the service writes to a container that holds
 * identities' attributes (`identities`, and `imports` for staged parts) has its personal and document
 * numbers sealed (fieldCipher.ts) on the way in and opened on the way out, whichever module reads or writes
 * it, so every API answers as before and the store holds no number. The numbers' types and countries stay
 * readable (the console and retention need them). A document stored before (plain values) is read as it is
 * and sealed on its next write. A value whose tenant key was removed reads as UNREADABLE_VALUE instead of
 * failing the whole page; written back unchanged it keeps its envelope.
 * The import content hash of a custom-source identity is keyed the same way: a plain hash of before is
 * keyed when read, and stored keyed on the next write, so an unchanged import stays unchanged.
 */
import type { ContainerName } from '../store/containers';
import type { DocumentCodec } from '../store/store';
import {
  associatedData,
  EnvelopeError,
  envelopeKeyId,
  isEnvelope,
  isKeyedHash,
  keyedHash,
  open,
  seal,
} from './fieldCipher';
import type { DataKeys, TenantKey } from './dataKeys';

/** What a caller reads in place of a number whose tenant key was removed (crypto-shredded). */
export const UNREADABLE_VALUE = '[unreadable]';

/** The encrypted fields: the list attribute and the field of each of its items. */
export const SENSITIVE_FIELDS = [
  { list: 'personalNumbers', field: 'value' },
  { list: 'identityDocumentReferences', field: 'documentNumber' },
] as const;

type Obj = Record<string, unknown>;

/** The envelope behind each unreadable item handed out, so writing the item back keeps it. */
const sealedOf = new WeakMap<object, string>();

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The objects of a document that carry identity attributes: the identity, or a staged part's identities. */
function holders(container: ContainerName, doc: Obj): Obj[] {
  if (container === 'identities') return [doc];
  if (container === 'imports' && Array.isArray(doc.identities)) return doc.identities.filter(isObj);
  return [];
}

/** The tenant of a document: its tenantId, else the first part of its partition key (`<tenant>|<source>`). */
function tenantOf(doc: Obj): string | undefined {
  if (typeof doc.tenantId === 'string') return doc.tenantId;
  if (typeof doc.pk === 'string') return doc.pk.split('|')[0];
  return undefined;
}

function values(holder: Obj, list: string, field: string): unknown[] {
  const items = holder[list];
  return Array.isArray(items) ? items.map((item) => (isObj(item) ? item[field] : undefined)) : [];
}

function pathOf(list: string, field: string): string {
  return `${list}.${field}`;
}

/**
 * How many bytes sealing adds to the stored form of these identities' attributes (each value becomes an
 * envelope of 55 characters plus its base64url text): what a size limit on the stored form must count.
 */
export function sealedGrowth(identities: readonly object[]): number {
  let bytes = 0;
  for (const h of identities)
    for (const { list, field } of SENSITIVE_FIELDS)
      for (const v of values(h as Obj, list, field))
        if (typeof v === 'string') {
          const n = Buffer.byteLength(v, 'utf8');
          bytes += 55 + Math.ceil((n * 4) / 3) - n;
        }
  return bytes;
}

export class FieldCrypto implements DocumentCodec {
  constructor(readonly keys: DataKeys) {}

  /** The stored form of `doc`: a copy with every plain number sealed and a plain content hash keyed. */
  async encode<D>(container: ContainerName, doc: D): Promise<D> {
    if (!isObj(doc)) return doc;
    const hs = holders(container, doc);
    const items = hs.flatMap((h) =>
      SENSITIVE_FIELDS.flatMap(({ list, field }) => {
        const l = h[list];
        return Array.isArray(l) ? l.filter(isObj).map((item) => ({ item, v: item[field] })) : [];
      }),
    );
    const kept = items.some(({ item, v }) => v === UNREADABLE_VALUE && sealedOf.has(item));
    const toSeal = items.some(
      ({ item, v }) => typeof v === 'string' && !isEnvelope(v) && !(v === UNREADABLE_VALUE && sealedOf.has(item)),
    );
    const plainHash =
      container === 'identities' && typeof doc.contentHash === 'string' && !isKeyedHash(doc.contentHash);
    if (!toSeal && !plainHash && !kept) return doc;
    const tenantId = tenantOf(doc);
    if (!tenantId) throw new Error('A document with personal numbers names no tenant');
    const key = toSeal || plainHash ? await this.keys.forWriting(tenantId) : undefined;
    const sealHolder = (h: Obj): Obj => {
      const out: Obj = { ...h };
      for (const { list, field } of SENSITIVE_FIELDS) {
        const l = h[list];
        if (!Array.isArray(l)) continue;
        const aad = associatedData(tenantId, pathOf(list, field));
        out[list] = l.map((item: unknown) => {
          if (!isObj(item)) return item;
          const v = item[field];
          if (typeof v !== 'string' || isEnvelope(v)) return item;
          const envelope = v === UNREADABLE_VALUE ? sealedOf.get(item) : undefined;
          if (envelope) return { ...item, [field]: envelope };
          if (!key) throw new Error('A value to seal without a key');
          return { ...item, [field]: seal(key.key, key.keyId, v, aad) };
        });
      }
      return out;
    };
    const out: Obj =
      container === 'identities'
        ? sealHolder(doc)
        : { ...doc, identities: (doc.identities as unknown[]).map((h) => (isObj(h) ? sealHolder(h) : h)) };
    if (plainHash && key) out.contentHash = keyedHash(key.hashKey, doc.contentHash as string);
    return out as D;
  }

  /** The readable form of a stored row: every envelope opened (UNREADABLE_VALUE without its key), a plain hash keyed. */
  async decode<D>(container: ContainerName, row: D): Promise<D> {
    if (!isObj(row)) return row;
    const hs = holders(container, row);
    const sealed = hs.some((h) => SENSITIVE_FIELDS.some(({ list, field }) => values(h, list, field).some(isEnvelope)));
    const plainHash =
      container === 'identities' && typeof row.contentHash === 'string' && !isKeyedHash(row.contentHash);
    if (!sealed && !plainHash) return row;
    const tenantId = tenantOf(row);
    const key = tenantId ? await this.keys.forReading(tenantId) : undefined;
    const openHolder = (h: Obj): Obj => {
      const out: Obj = { ...h };
      for (const { list, field } of SENSITIVE_FIELDS) {
        const items = h[list];
        if (!Array.isArray(items)) continue;
        const aad = associatedData(tenantId ?? '', pathOf(list, field));
        out[list] = items.map((item: unknown) => {
          if (!isObj(item) || !isEnvelope(item[field])) return item;
          const envelope = item[field] as string;
          const opened = openWith(key, envelope, aad);
          if (opened !== undefined) return { ...item, [field]: opened };
          const unreadable = { ...item, [field]: UNREADABLE_VALUE };
          sealedOf.set(unreadable, envelope);
          return unreadable;
        });
      }
      return out;
    };
    const out: Obj = !sealed
      ? { ...row }
      : container === 'identities'
        ? openHolder(row)
        : { ...row, identities: (row.identities as unknown[]).map((h) => (isObj(h) ? openHolder(h) : h)) };
    if (plainHash && key) out.contentHash = keyedHash(key.hashKey, row.contentHash as string);
    return out as D;
  }

  /** Keys plain content hashes with the tenant's hash key (created with its data key when it has none). */
  async hashKeyer(tenantId: string): Promise<(plainHash: string) => string> {
    const key = await this.keys.forWriting(tenantId);
    return (plainHash) => keyedHash(key.hashKey, plainHash);
  }
}

function openWith(key: TenantKey | undefined, envelope: string, aad: Buffer): string | undefined {
  if (!key || envelopeKeyId(envelope) !== key.keyId) return undefined;
  try {
    return open(key.key, envelope, aad);
  } catch (err) {
    if (err instanceof EnvelopeError) return undefined;
    throw err;
  }
}
