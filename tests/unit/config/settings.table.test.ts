/**
 * Each setting's default and bounds are written once, in its row of SETTINGS: loadSettings reads them from
 * there, and docs/configuration.md shows the same default.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, SETTINGS, defaultText, integerDefault, loadSettings } from '../../../lib/config/settings';

const base = { PUBLIC_BASE_URL: 'https://svc.example.com/', COSMOS_ENDPOINT: 'https://acct.documents.azure.com:443/' };
const integers = SETTINGS.flatMap((row) => (row.parse?.type === 'integer' ? [{ name: row.name, ...row.parse }] : []));

describe('the settings table owns defaults and bounds', () => {
  it('gives every row one default: from how it is read, or a written text when it has none', () => {
    for (const row of SETTINGS) {
      expect([row.name, row.parse !== undefined, row.default !== undefined]).toEqual([
        row.name,
        row.parse !== undefined,
        row.parse === undefined,
      ]);
    }
    expect(integers.length).toBeGreaterThan(20);
  });

  it('loadSettings passes no default or bound of its own to a reader', () => {
    const source = fs.readFileSync(path.join(__dirname, '../../../lib/config/settings.ts'), 'utf8');
    const load = source.slice(
      source.indexOf('export function loadSettings'),
      source.indexOf('export type SettingScope'),
    );
    const reads = [...load.matchAll(/\b(integer|bool|text|url|oneOf)\(env, '([A-Za-z_]+)'([^)]*)\)/g)];
    expect(reads.length).toBeGreaterThan(30);
    // A reader may be told the account's mode (the row's autoscaleDefault applies then), nothing else.
    const withMore = reads.filter(([, reader, , rest]) =>
      reader === 'oneOf' ? !/^, [A-Z_]+$/.test(rest ?? '') : rest && rest !== ', cosmosThroughputMode',
    );
    expect(withMore.map((m) => m[0])).toEqual([]);
  });

  it.each(integers.map((row) => [row.name, row]))(
    '%s: its default is within its bounds, and they hold',
    (name, row) => {
      const fallback = integerDefault(name);
      expect(fallback).toBeGreaterThanOrEqual(row.min);
      expect(fallback).toBeLessThanOrEqual(row.max);
      const refused = (value: number) => () => loadSettings({ ...base, [name]: String(value) });
      expect(refused(row.max + 1)).toThrow(new ConfigError(name, `must be between ${row.min} and ${row.max}`));
      expect(refused(row.min - 1)).toThrow(new ConfigError(name, `must be between ${row.min} and ${row.max}`));
    },
  );

  it('reads the defaults from the table', () => {
    const s = loadSettings(base);
    expect(s.retentionInactiveDays).toBe(integerDefault('RETENTION_INACTIVE_DAYS'));
    expect(s.graphqlMaxBodyBytes).toBe(integerDefault('GRAPHQL_MAX_BODY_BYTES'));
    expect(s.scimTenantRateLimitPerSecond).toBe(2 * integerDefault('SCIM_RATE_LIMIT_PER_SECOND'));
    expect(s.logLevel).toBe('info');
    expect(s.cosmos.database).toBe('business-identities');
  });

  it('shows a default that follows another setting with both names and the value', () => {
    const row = SETTINGS.find((r) => r.name === 'SCIM_TENANT_RATE_LIMIT_PER_SECOND')!;
    expect(defaultText(row)).toBe('twice `SCIM_RATE_LIMIT_PER_SECOND` (`100`)');
    expect(loadSettings({ ...base, SCIM_RATE_LIMIT_PER_SECOND: '70' }).scimTenantRateLimitPerSecond).toBe(140);
  });
});
