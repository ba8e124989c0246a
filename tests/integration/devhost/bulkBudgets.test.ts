/**
 * The local stack gives the service bulk budgets in step with its engine's request units unless they are set
 * (devhost/bulkBudgets.ts), and takes them away again when it stops.
 */
import { startLocalStack } from '../../../devhost/stack';
import { services } from '../../../lib/services';

async function budgetsOfStack(options: Parameters<typeof startLocalStack>[0]): Promise<[number, number]> {
  const stack = await startLocalStack(options);
  try {
    const s = services().settings;
    return [s.bulkRequestUnitsPerSecondPerTenant, s.bulkRequestUnitsPerSecond];
  } finally {
    await stack.stop();
  }
}

describe('local stack: bulk budgets', () => {
  it("follow the engine's budget, are unlimited without one, and stay as set when set", async () => {
    expect(await budgetsOfStack({ cosmosRuPerSecond: 5_000 })).toEqual([2_000, 2_500]);
    expect(process.env.BULK_REQUEST_UNITS_PER_SECOND).toBeUndefined();
    expect(await budgetsOfStack({})).toEqual([10_000_000, 10_000_000]);
    expect(
      await budgetsOfStack({
        cosmosRuPerSecond: 5_000,
        env: { BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT: '7', BULK_REQUEST_UNITS_PER_SECOND: '9' },
      }),
    ).toEqual([7, 9]);
  });
});
