/**
 * Which instance runs the timers. In Azure a timer function runs once per schedule for the whole app: the
 * instance that holds the timer's singleton lease in host storage runs it, and when that instance dies its
 * lease lapses and a survivor takes it. The local fleet keeps the same promise with this choice: the owner
 * stays while it lives; otherwise the first live instance (in start order) takes over; none when none lives.
 */
export function timerOwner<T>(live: readonly T[], current: T | undefined): T | undefined {
  if (current !== undefined && live.includes(current)) return current;
  return live[0];
}
