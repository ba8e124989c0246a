import fs from 'node:fs';
import path from 'node:path';

export const INFRA = path.resolve(__dirname, '..', '..', '..', 'infra');

export function readInfra(file: string): string {
  return fs.readFileSync(path.join(INFRA, file), 'utf8');
}

/** Every .bicep file of the template, concatenated. */
export function allBicep(): string {
  const files = ['main.bicep', ...fs.readdirSync(path.join(INFRA, 'modules')).filter((f) => f.endsWith('.bicep')).map((f) => `modules/${f}`)];
  return files.map(readInfra).join('\n');
}

/** App setting names declared as `{ name: 'X', value: … }` in a Bicep text. */
export function appSettingNames(bicep: string): Set<string> {
  return new Set([...bicep.matchAll(/\{\s*name:\s*'([A-Za-z0-9_]+)'\s*,\s*value:/g)].map((m) => m[1] ?? ''));
}

/** The setting names the code reads that the template does not set. */
export function missingSettings(bicep: string, names: readonly string[]): string[] {
  const declared = appSettingNames(bicep);
  return names.filter((n) => !declared.has(n));
}

/** `output NAME type = …` lines. */
export function outputs(bicep: string): string[] {
  return [...bicep.matchAll(/^output\s+([A-Za-z0-9_]+)\s/gm)].map((m) => m[1] ?? '');
}
