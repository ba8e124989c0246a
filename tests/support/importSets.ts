/** Import sets for tests: `n` employees of a source, externalIds `<prefix>-<i>`. */
export function importPeople(prefix: string, n: number) {
  return Array.from({ length: n }, (_, i) => ({
    externalId: `${prefix}-${i}`,
    affiliationType: 'EMPLOYMENT',
    firstName: 'Bulk',
    lastName: `${prefix}${i}`,
  }));
}

/** Sends one GraphQL request as some administrator; resolves with its `data` (throws on errors). */
export type SendGraphQL = <T>(query: string, variables: unknown) => Promise<T>;

/**
 * Stages `n` employees of `prefix` (importPeople) as a staged import of `source`, in parts of `part`, and
 * completes it: the run's id.
 */
export async function stageAndComplete(
  send: SendGraphQL,
  source: string,
  prefix: string,
  n: number,
  part: number,
): Promise<string> {
  const { importId } = (
    await send<{ startImport: { importId: string } }>(
      'mutation($i: StartImportInput!) { startImport(input: $i) { importId } }',
      { i: { source } },
    )
  ).startImport;
  const people = importPeople(prefix, n);
  for (let p = 0; p * part < n; p++)
    await send('mutation($i: AddImportPartInput!) { addImportPart(input: $i) { partsReceived } }', {
      i: { importId, sequence: p + 1, identities: people.slice(p * part, (p + 1) * part) },
    });
  const { runId } = (
    await send<{ completeImport: { runId: string } }>(
      'mutation($i: CompleteImportInput!) { completeImport(input: $i) { runId } }',
      { i: { importId } },
    )
  ).completeImport;
  return runId;
}

/** A staged run as the kill tests follow it (`importRun` with RUN). */
export type Run = {
  status: string;
  importCounts: { created: number; updated: number; deleted: number; unchanged: number } | null;
  progress: { applied: number; total: number } | null;
};
export const RUN =
  'query($id: ID!) { importRun(id: $id) { status importCounts { created updated deleted unchanged } progress { applied total } } }';
