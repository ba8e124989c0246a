/**
 * NCRONTAB expressions as used by Azure Functions timer triggers:
 * six fields `second minute hour day month day-of-week`, each `*`, a number,
 * a range `a-b`, a list `a,b`, or a step `* /n` / `a-b/n`.
 */

export interface Schedule {
  matches(date: Date): boolean;
}

const LIMITS: Array<[number, number]> = [
  [0, 59],
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];

function parseField(field: string, [min, max]: [number, number]): Set<number> {
  const values = new Set<number>();
  for (const part of field.split(',')) {
    const [rangePart = '', stepPart] = part.split('/');
    const step = stepPart === undefined ? 1 : Number(stepPart);
    if (!Number.isInteger(step) || step < 1) throw new Error(`Invalid step in "${field}"`);
    let from: number;
    let to: number;
    if (rangePart === '*') {
      from = min;
      to = max;
    } else if (rangePart.includes('-')) {
      const [a, b] = rangePart.split('-').map(Number);
      from = a ?? NaN;
      to = b ?? NaN;
    } else {
      from = Number(rangePart);
      to = stepPart === undefined ? from : max;
    }
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < min || to > max || from > to) {
      throw new Error(`Invalid value in "${field}"`);
    }
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

export function parseNcrontab(expression: string): Schedule {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 6) throw new Error('An NCRONTAB expression has six fields');
  const sets = fields.map((f, i) => parseField(f, LIMITS[i] ?? [0, 0]));
  return {
    matches(d: Date): boolean {
      const parts = [d.getSeconds(), d.getMinutes(), d.getHours(), d.getDate(), d.getMonth() + 1, d.getDay()];
      return parts.every((v, i) => sets[i]?.has(v) ?? false);
    },
  };
}

/** Resolves `%SETTING%` binding expressions from the environment, as the host does. */
export function resolveAppSettingExpression(
  value: string,
  env: Record<string, string | undefined> = process.env,
): string {
  return value.replace(/%([A-Za-z0-9_]+)%/g, (_, name: string) => {
    const v = env[name];
    if (v === undefined) throw new Error(`App setting ${name} referenced by a binding is not set`);
    return v;
  });
}
