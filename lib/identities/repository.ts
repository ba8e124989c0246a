import type { Store, WithEtag } from '../store/store';
import { isStoreError } from '../store/errors';
import type { IdentityDoc } from './model';
import { byUniqueKey } from '../store/queries/identities';

export class UniquenessError extends Error {
  constructor() {
    super('Another identity of the source has the same externalId or userName');
    this.name = 'UniquenessError';
  }
}

/** Business identities in the store; every access is inside one source's partition. */
export class IdentityRepository {
  constructor(private readonly store: Store) {}

  private get items() {
    return this.store.collection<IdentityDoc>('identities');
  }

  get(pk: string, id: string): Promise<WithEtag<IdentityDoc> | undefined> {
    return this.items.read(pk, id);
  }

  async create(doc: IdentityDoc, options: { retryThrottled?: boolean } = {}): Promise<WithEtag<IdentityDoc>> {
    try {
      return await this.items.create(doc, options);
    } catch (err) {
      if (isStoreError(err, 'conflict')) throw new UniquenessError();
      throw err;
    }
  }

  /** Creates many identities of one partition in transactional batches; per item: created, conflict, or the store failure. */
  batchCreate(pk: string, docs: IdentityDoc[], options: { retryThrottled?: boolean } = {}) {
    return this.items.batchCreate(pk, docs, options);
  }

  /** Replaces when the stored item still has `etag`; preconditionFailed otherwise. */
  async replace(
    doc: IdentityDoc,
    etag: string,
    options: { retryThrottled?: boolean } = {},
  ): Promise<WithEtag<IdentityDoc>> {
    try {
      return await this.items.replace(doc, etag, options);
    } catch (err) {
      if (isStoreError(err, 'conflict')) throw new UniquenessError();
      throw err;
    }
  }

  delete(pk: string, id: string, etag?: string): Promise<boolean> {
    return this.items.delete(pk, id, etag);
  }

  async findOne(
    pk: string,
    field: 'externalIdKey' | 'userNameKey',
    value: string,
  ): Promise<WithEtag<IdentityDoc> | undefined> {
    const page = await this.items.page(byUniqueKey(pk, field, value), { maxItemCount: 1 });
    return page.items[0];
  }
}
