/** Import sets for tests: `n` employees of a source, externalIds `<prefix>-<i>`. */
export function importPeople(prefix: string, n: number) {
  return Array.from({ length: n }, (_, i) => ({
    externalId: `${prefix}-${i}`,
    affiliationType: 'EMPLOYMENT',
    firstName: 'Bulk',
    lastName: `${prefix}${i}`,
  }));
}
