/** lib/store/stampedWrite: a throttled write is sent again with the time of the new try, within a bounded wait. */
import { writeStamped } from '../../../lib/store/stampedWrite';
import { StoreError } from '../../../lib/store/errors';

const throttled = (ms: number) => new StoreError('throttled', 'Store is throttling requests', ms);

describe('writeStamped', () => {
  it('stamps each try anew and returns the first accepted one', async () => {
    const stamps: string[] = [];
    const result = await writeStamped(async (now) => {
      stamps.push(now);
      if (stamps.length < 3) throw throttled(5);
      return now;
    });
    expect(stamps).toHaveLength(3);
    expect(result).toBe(stamps[2]);
    expect(stamps[2]! > stamps[0]!).toBe(true);
  });

  it("passes the store's error on once the waits would exceed the bound", async () => {
    let tries = 0;
    await expect(
      writeStamped(async () => {
        tries++;
        throw throttled(4);
      }, 10),
    ).rejects.toMatchObject({ failure: 'throttled' });
    expect(tries).toBe(3); // waits 4 + 4 = 8 ms; a third wait would pass 10
  });

  it('does not retry other failures', async () => {
    let tries = 0;
    await expect(
      writeStamped(async () => {
        tries++;
        throw new StoreError('preconditionFailed', 'Item changed since it was read');
      }),
    ).rejects.toMatchObject({ failure: 'preconditionFailed' });
    expect(tries).toBe(1);
  });
});
