import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, getOperationAST, parse } from 'graphql';
import {
  OPERATION_ACCESS,
  accessOf,
  consoleMayCall,
  needsApplicationToken,
  rootFields,
} from '../../../lib/graphql/operationAccess';
import { Q } from '../../../console/src/api';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const schema = buildSchema(fs.readFileSync(path.join(ROOT, 'lib', 'graphql', 'schema.graphql'), 'utf8'));

describe('who may call each operation', () => {
  it('has a row for every root field of the schema', () => {
    const fields = {
      Query: Object.keys(schema.getQueryType()!.getFields()),
      Mutation: Object.keys(schema.getMutationType()!.getFields()),
    };
    const missing = (['Query', 'Mutation'] as const).flatMap((type) =>
      fields[type].filter((field) => !accessOf(type, field)).map((field) => `${type}.${field}`),
    );
    expect(missing).toEqual([]);
  });

  it('lets console users call exactly what the console sends, and applications everything', () => {
    const consoleFields = new Set(
      Object.values(Q).flatMap((document) => {
        const doc = parse(document.toString());
        const op = getOperationAST(doc)!;
        return rootFields(doc, op).map((f) => `${op.operation === 'mutation' ? 'Mutation' : 'Query'}.${f}`);
      }),
    );
    for (const row of OPERATION_ACCESS) {
      expect(row.app).toBe(true);
      if (row.type === 'Mutation')
        expect([row.field, row.console]).toEqual([row.field, consoleFields.has(`Mutation.${row.field}`)]);
      else expect([row.field, row.console]).toEqual([row.field, true]);
    }
    for (const field of consoleFields)
      expect([field, consoleMayCall(...(field.split('.') as ['Query', string]))]).toEqual([field, true]);
  });

  it('keeps imports, their parts and associations with applications', () => {
    for (const field of [
      'importBusinessIdentities',
      'associateBusinessIdentities',
      'startImport',
      'addImportPart',
      'completeImport',
    ])
      expect(consoleMayCall('Mutation', field)).toBe(false);
  });

  it('refuses console users a root field the table does not know (deny by default); introspection is open', () => {
    expect(consoleMayCall('Mutation', 'somethingNew')).toBe(false);
    expect(consoleMayCall('Query', 'somethingNew')).toBe(false);
    for (const meta of ['__schema', '__type', '__typename']) expect(consoleMayCall('Query', meta)).toBe(true);
  });

  it('finds root fields through fragments, inline fragments and aliases, and survives a fragment cycle', () => {
    const doc = parse(`mutation { a: x ...F ... on Mutation { y ...G } }
      fragment F on Mutation { z ...G } fragment G on Mutation { w ...F }`);
    expect(rootFields(doc, getOperationAST(doc)!).sort()).toEqual(['w', 'x', 'y', 'z']);
  });

  it("says an application token is needed, naming only the table's own operation", () => {
    const known = needsApplicationToken(accessOf('Mutation', 'importBusinessIdentities'));
    expect(known.extensions.code).toBe('AUTH_NOT_AUTHORIZED');
    expect(known.message).toMatch(/^Not authorized: importBusinessIdentities needs an application token/);
    expect(needsApplicationToken(undefined).message).toMatch(
      /^Not authorized: This operation needs an application token/,
    );
  });

  it('is the table docs/security.md shows', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'security.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `(\w+)` \| (query|mutation) \| (yes|no) \| (yes|no) \|/gm)].map((m) => ({
      type: m[2] === 'query' ? 'Query' : 'Mutation',
      field: m[1],
      app: m[3] === 'yes',
      console: m[4] === 'yes',
    }));
    expect(rows).toEqual(OPERATION_ACCESS.map((r) => ({ ...r })));
  });
});
