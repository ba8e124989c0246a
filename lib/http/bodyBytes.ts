/**
 * The instance's bound on GraphQL request body bytes held in memory at once. A body is read whole before it is
 * parsed (on the bulk thread when large), and an import may be as large as GRAPHQL_MAX_BODY_BYTES, which
 * takes several times its size once parsed: without a bound, one tenant's administrator sending several
 * large imports at once could take the memory of the instance every customer shares. A request holds its
 * declared Content-Length before its body is read (or its bytes as they arrive when it declares none) and
 * gives them back when it is answered; a request that does not fit is refused busy without being read.
 */
export class BodyBytesBudget {
  private used = 0;

  constructor(private readonly limit: number) {}

  /** A hold on bytes of this budget, grown as needed; false from grow when they do not fit. */
  hold(): { grow(bytes: number): boolean; release(): void } {
    let held = 0;
    return {
      grow: (bytes) => {
        if (this.used + bytes > this.limit) return false;
        this.used += bytes;
        held += bytes;
        return true;
      },
      release: () => {
        this.used -= held;
        held = 0;
      },
    };
  }
}
