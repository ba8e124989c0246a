/**
 * The instance's bound on GraphQL request body bytes held in memory at once, and each tenant's share of it.
 * A body is read whole before it is parsed, and takes several times its size once parsed: without a bound,
 * administrators sending many bodies at once could take the memory every customer shares, and without a
 * share per tenant one tenant's bodies (slow ones above all) could take the whole bound and have every other
 * tenant refused. A request holds its declared Content-Length before its body is read (or its bytes as they
 * arrive when it declares none) and gives them back when it is answered; a request that does not fit the
 * instance's bound or its tenant's share is refused busy without being read further.
 */
export interface BodyBytesHold {
  /** Holds `bytes` more; false (and nothing more held) when they do not fit. */
  grow(bytes: number): boolean;
  /** Gives back everything this hold took. */
  release(): void;
}

export class BodyBytesBudget {
  private used = 0;
  private readonly byTenant = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly tenantLimit: number,
  ) {}

  /** Bytes held now: by every tenant, or by one. */
  held(tenantId?: string): number {
    return tenantId === undefined ? this.used : (this.byTenant.get(tenantId) ?? 0);
  }

  /** A hold on bytes of this budget for one of the tenant's requests, grown as needed. */
  hold(tenantId: string): BodyBytesHold {
    let held = 0;
    return {
      grow: (bytes) => {
        const tenant = this.byTenant.get(tenantId) ?? 0;
        if (this.used + bytes > this.limit || tenant + bytes > this.tenantLimit) return false;
        this.used += bytes;
        this.byTenant.set(tenantId, tenant + bytes);
        held += bytes;
        return true;
      },
      release: () => {
        if (held === 0) return;
        this.used -= held;
        const left = (this.byTenant.get(tenantId) ?? 0) - held;
        if (left > 0) this.byTenant.set(tenantId, left);
        else this.byTenant.delete(tenantId);
        held = 0;
      },
    };
  }
}
