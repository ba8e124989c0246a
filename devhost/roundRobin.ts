/**
 * Which instance the front gives the next request: the live ones in turn, with no stickiness (Flex
 * Consumption's front end keeps no session affinity either). An instance that died leaves the turn at once;
 * the turn goes on from where it was, so the survivors share the requests evenly.
 */
export class RoundRobin<T> {
  private next = 0;
  private readonly members: T[] = [];

  constructor(members: Iterable<T> = []) {
    for (const m of members) this.add(m);
  }

  add(member: T): void {
    if (!this.members.includes(member)) this.members.push(member);
  }

  remove(member: T): void {
    const at = this.members.indexOf(member);
    if (at < 0) return;
    this.members.splice(at, 1);
    // The member after the removed one keeps its place in the turn.
    if (at < this.next) this.next--;
  }

  /** The next member in turn, or undefined when none is live. */
  pick(): T | undefined {
    if (this.members.length === 0) return undefined;
    if (this.next >= this.members.length) this.next = 0;
    const member = this.members[this.next];
    this.next = (this.next + 1) % this.members.length;
    return member;
  }

  get live(): readonly T[] {
    return this.members;
  }
}
