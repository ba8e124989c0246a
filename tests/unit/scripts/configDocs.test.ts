/**
 * docs/configuration.md is generated from the settings table (`npm run docs:config`): it must match what the
 * script renders, and the table must name every setting the code reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SETTINGS, SETTING_NAMES } from '../../../lib/config/settings';
import { CONFIGURATION_DOC, renderConfigurationDoc } from '../../../scripts/configDocs';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const matches = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => m[1] ?? '');

describe('docs/configuration.md', () => {
  it('is exactly what `npm run docs:config` renders from the settings table (run it after changing a setting)', () => {
    expect(read(CONFIGURATION_DOC)).toBe(renderConfigurationDoc());
  });

  it('renders one row per setting, with its default, meaning and where it applies', () => {
    const doc = renderConfigurationDoc([
      { name: 'EXAMPLE_SETTING', default: '`7`', meaning: 'a | b', appliesTo: 'local stack', deployed: false },
    ]);
    expect(doc).toContain('| `EXAMPLE_SETTING` | `7` | a \\| b | local stack only (`npm start`) |');
  });
});

describe('the settings table', () => {
  const names = SETTINGS.map((s) => s.name);

  it('names each setting once', () => {
    expect(new Set(names).size).toBe(names.length);
  });

  it('holds every setting the service reads (lib/config/settings.ts and timer schedules in functions/)', () => {
    const readByService = [
      ...matches(read('lib/config/settings.ts'), /\(\s*env,\s*'([A-Za-z_]+)'/g),
      ...fs
        .readdirSync(path.join(ROOT, 'functions'))
        .flatMap((f) => matches(read(path.join('functions', f)), /'%([A-Z_]+)%'/g)),
    ];
    expect(readByService.length).toBeGreaterThan(20);
    // Set by the Azure platform, not by an operator; the generated page explains them under "Azure or local".
    const platform = ['WEBSITE_INSTANCE_ID', 'WEBSITE_SITE_NAME'];
    expect(readByService.filter((n) => !names.includes(n) && !platform.includes(n))).toEqual([]);
  });

  it("holds every setting of the local stack's start-up (devhost/main.ts)", () => {
    const main = read('devhost/main.ts');
    const devNames = [...matches(main, /process\.env\.(DEV_[A-Z_]+)/g), ...matches(main, /port\('(DEV_[A-Z_]+)'/g)];
    expect(devNames.length).toBeGreaterThan(5);
    expect(devNames.filter((n) => !names.includes(n))).toEqual([]);
  });

  it('lists the settings the template deploys, and none of the local stack among them', () => {
    expect(SETTING_NAMES).toEqual(SETTINGS.filter((s) => s.deployed).map((s) => s.name));
    expect(SETTINGS.filter((s) => s.appliesTo === 'local stack' && s.deployed)).toEqual([]);
  });
});
