import { bulkBudgetsFor, UNLIMITED_BULK_RU } from '../../../devhost/bulkBudgets';
import { loadSettings } from '../../../lib/config/settings';

describe("local stack: bulk work's request-unit budgets follow the engine's", () => {
  it("a serverless container's 5,000 RU/s gives the service's defaults", () => {
    const budgets = bulkBudgetsFor(5_000);
    const defaults = loadSettings({ PUBLIC_BASE_URL: 'http://localhost', COSMOS_ENDPOINT: 'http://localhost:1' });
    expect(Number(budgets.BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT)).toBe(defaults.bulkRequestUnitsPerSecondPerTenant);
    expect(Number(budgets.BULK_REQUEST_UNITS_PER_SECOND)).toBe(defaults.bulkRequestUnitsPerSecond);
  });

  it('another budget gives the same shares of it (never below 1 RU/s), and settings the service accepts', () => {
    expect(bulkBudgetsFor(400)).toEqual({
      BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT: '160',
      BULK_REQUEST_UNITS_PER_SECOND: '200',
    });
    expect(bulkBudgetsFor(1)).toEqual({
      BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT: '1',
      BULK_REQUEST_UNITS_PER_SECOND: '1',
    });
    for (const ru of [1, 7, 400, 5_000, 1_000_000])
      expect(() =>
        loadSettings({
          PUBLIC_BASE_URL: 'http://localhost',
          COSMOS_ENDPOINT: 'http://localhost:1',
          ...bulkBudgetsFor(ru),
        }),
      ).not.toThrow();
  });

  it('an engine without a budget serves any rate: bulk work is not held back', () => {
    expect(bulkBudgetsFor(undefined)).toEqual({
      BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT: String(UNLIMITED_BULK_RU),
      BULK_REQUEST_UNITS_PER_SECOND: String(UNLIMITED_BULK_RU),
    });
  });
});
