/** The bound on an organization's staged imports started and not ended (pure part; the store part in stagedImports.test.ts). */
import { admitImport, type OpenImport } from '../../../lib/imports/tenantImports';

const BOUNDS = { maxOpen: 2, maxDryRuns: 1 };
const NOW = 1_000_000;

describe('admitImport', () => {
  it('admits imports up to the bound, dry runs apart', () => {
    const listed: OpenImport[] = [['a', 0, NOW + 1]];
    expect(admitImport(listed, ['b', 0, NOW + 5], BOUNDS, NOW)).toEqual({
      imports: [
        ['a', 0, NOW + 1],
        ['b', 0, NOW + 5],
      ],
    });
    const full: OpenImport[] = [...listed, ['b', 0, NOW + 5]];
    expect(admitImport(full, ['c', 0, NOW + 5], BOUNDS, NOW)).toEqual({ refused: 'open' });
    expect(admitImport(full, ['d', 1, NOW + 5], BOUNDS, NOW)).toEqual({ imports: [...full, ['d', 1, NOW + 5]] });
    expect(admitImport([...full, ['d', 1, NOW + 5]], ['e', 1, NOW + 5], BOUNDS, NOW)).toEqual({ refused: 'dryRuns' });
  });

  it('drops entries past their time, and gives an import already listed its new time', () => {
    const listed: OpenImport[] = [
      ['a', 0, NOW],
      ['b', 0, NOW + 10],
    ];
    expect(admitImport(listed, ['c', 0, NOW + 5], BOUNDS, NOW)).toEqual({
      imports: [
        ['b', 0, NOW + 10],
        ['c', 0, NOW + 5],
      ],
    });
    const full: OpenImport[] = [
      ['a', 0, NOW + 10],
      ['b', 0, NOW + 10],
    ];
    expect(admitImport(full, ['b', 0, NOW + 99], BOUNDS, NOW)).toEqual({
      imports: [
        ['a', 0, NOW + 10],
        ['b', 0, NOW + 99],
      ],
    });
  });
});
