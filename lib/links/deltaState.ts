/**
 * Per tenant, where its directory change tracking stands: the `@odata.deltaLink` of the last complete
 * round, the `@odata.nextLink` of a round under way, and the safety sweep's cursor and next time.
 * One document in the links container (pk = tenantId, an id no directory object id can have).
 */
import type { Store, StoredDoc, WithEtag } from '../store/store';
import { isStoreError } from '../store/errors';

export const DELTA_STATE_ID = 'directory-delta';

export interface DeltaState extends StoredDoc {
  tenantId: string;
  /** Link of the last complete round: asking it returns what changed since. */
  deltaLink?: string;
  /** A round under way (the first one, or one after an expired token, can take several units). */
  nextLink?: string;
  /** When the round under way started: a first round is a full one, matched as such. */
  fullRound?: boolean;
  /** Safety sweep: continue after this identity id ('' = from the start). */
  sweepAfter?: string;
  /** Safety sweep: the next sweep is due at this time (ISO 8601); absent = after the first full round. */
  sweepDueAt?: string;
  updatedAt: string;
}

export class DeltaStates {
  constructor(private readonly store: Store) {}

  private get docs() {
    return this.store.collection<DeltaState>('links');
  }

  async get(tenantId: string): Promise<WithEtag<DeltaState> | undefined> {
    return this.docs.read(tenantId, DELTA_STATE_ID);
  }

  /**
   * Saves the state if nobody saved it since `previous` was read (false when someone did: an
   * overlapping unit of the tenant went on, and its state stands).
   */
  async save(state: Omit<DeltaState, 'id' | 'pk'>, previous: WithEtag<DeltaState> | undefined): Promise<boolean> {
    const doc: DeltaState = { ...state, id: DELTA_STATE_ID, pk: state.tenantId };
    try {
      if (previous) await this.docs.replace(doc, previous._etag);
      else await this.docs.create(doc);
      return true;
    } catch (err) {
      if (isStoreError(err, 'preconditionFailed') || isStoreError(err, 'conflict') || isStoreError(err, 'notFound'))
        return false;
      throw err;
    }
  }
}
