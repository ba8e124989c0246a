/** lib/graphql/rejectedRuns: which import and association fields a refused request names, and their source. */
import { refusedRuns } from '../../../lib/graphql/rejectedRuns';

const IMPORT = 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }';

describe('refusedRuns', () => {
  it('reads the source and the number of items from the variables', () => {
    expect(refusedRuns({ query: IMPORT, variables: { i: { source: 'Payroll', identities: [{}, {}, {}] } } })).toEqual([
      { operation: 'import', source: 'Payroll', submitted: 3 },
    ]);
  });

  it('reads a literal input, and a variable inside it', () => {
    const query =
      'mutation($s: String!) { associateBusinessIdentities(input: { source: $s, associations: [{ externalId: "a", userPrincipalName: null }] }) { associated } }';
    expect(refusedRuns({ query, variables: { s: 'Hr' } })).toEqual([
      { operation: 'association', source: 'Hr', submitted: 1 },
    ]);
  });

  it('names the operation chosen by operationName, and ignores queries and other mutations', () => {
    const query = `${IMPORT.replace('mutation(', 'mutation A(')} query B { importRuns(source: "x") { id } }`;
    expect(refusedRuns({ query, operationName: 'B', variables: {} })).toEqual([]);
    expect(refusedRuns({ query, operationName: 'A', variables: { i: { source: 'S', identities: [] } } })).toHaveLength(
      1,
    );
    expect(refusedRuns({ query: 'mutation { createBusinessIdentity(input: {}) { id } }' })).toEqual([]);
  });

  it('nothing without a valid source name, or for a document that does not parse', () => {
    expect(refusedRuns({ query: IMPORT, variables: { i: { source: null, identities: [] } } })).toEqual([]);
    expect(refusedRuns({ query: IMPORT, variables: { i: { source: '', identities: [] } } })).toEqual([]);
    expect(refusedRuns({ query: 'mutation {', variables: {} })).toEqual([]);
  });
});
