import { buildSchema, getIntrospectionQuery, parse, validate } from 'graphql';
import { MAX_DEPTH, MAX_INTROSPECTION_DEPTH, queryLimitsRule } from '../../../lib/graphql/limits';

const schema = buildSchema('type Node { child: Node name: String } type Query { root: Node }');
const codes = (query: string) =>
  validate(schema, parse(query), [queryLimitsRule]).map((e) => String(e.extensions.code));
const nested = (levels: number) => `{ root ${'{ child '.repeat(levels - 2)}{ name }${' }'.repeat(levels - 2)} }`;

describe('query depth', () => {
  it(`refuses a query deeper than ${MAX_DEPTH} levels`, () => {
    expect(codes(nested(MAX_DEPTH))).toEqual([]);
    expect(codes(nested(MAX_DEPTH + 1))).toEqual(['QUERY_TOO_COMPLEX']);
  });

  it("lets GraphiQL's standard introspection query through, still bounded", () => {
    expect(codes(getIntrospectionQuery())).toEqual([]);
    const deep = `{ __type(name: "Query") ${'{ ofType '.repeat(MAX_INTROSPECTION_DEPTH)}{ name }${' }'.repeat(MAX_INTROSPECTION_DEPTH)} }`;
    expect(codes(deep)).toEqual(['QUERY_TOO_COMPLEX']);
  });

  it('does not lift the limit for data fields beside an introspection field', () => {
    expect(codes(`{ __typename ${nested(MAX_DEPTH + 1).slice(1)}`)).toEqual(['QUERY_TOO_COMPLEX']);
  });
});
