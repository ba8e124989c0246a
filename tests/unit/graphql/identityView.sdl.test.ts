/**
 * schema.graphql against the attribute table: BusinessIdentity, ImportBusinessIdentityInput and
 * UpdateBusinessIdentityInput carry exactly the table's GraphQL, import and update fields (a row added
 * without its SDL line fails here, and an SDL line without its row), with the table's enumerations.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse, type TypeNode } from 'graphql';
import { IDENTITY_ATTRIBUTES, type AttributeRow } from '../../../lib/identities/attributes';
import type { IdentityDoc } from '../../../lib/identities/model';
import { identityView } from '../../../lib/graphql/identityView';

const SDL = parse(fs.readFileSync(path.resolve(__dirname, '../../../lib/graphql/schema.graphql'), 'utf8'));
const ROWS: readonly AttributeRow[] = IDENTITY_ATTRIBUTES;

/** Fields of BusinessIdentity that are not attributes of a source: the service's own (id, link, history, times). */
const SERVICE_FIELDS = [
  'id',
  'source',
  'directoryLinkStatus',
  'directoryLinkSource',
  'directoryLinkedUserId',
  'linkedUserPrincipalName',
  'conflictHeldBy',
  'nextCheckAt',
  'linkHistory',
  'history',
  'historyOmitted',
  'created',
  'lastModified',
];

function fieldsOf(typeName: string): Map<string, TypeNode> {
  for (const def of SDL.definitions) {
    if (
      (def.kind === Kind.OBJECT_TYPE_DEFINITION || def.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) &&
      def.name.value === typeName
    )
      return new Map((def.fields ?? []).map((f) => [f.name.value, f.type]));
  }
  throw new Error(`schema.graphql has no type ${typeName}`);
}

function enumValues(typeName: string): string[] {
  for (const def of SDL.definitions)
    if (def.kind === Kind.ENUM_TYPE_DEFINITION && def.name.value === typeName)
      return (def.values ?? []).map((v) => v.name.value);
  throw new Error(`schema.graphql has no enum ${typeName}`);
}

const nonNull = (t: TypeNode): boolean => t.kind === Kind.NON_NULL_TYPE;
const namedType = (t: TypeNode): string => (t.kind === Kind.NAMED_TYPE ? t.name.value : namedType(t.type));
const sorted = (names: Iterable<string>): string[] => [...names].sort();
const column = (pick: (r: AttributeRow) => string | undefined): string[] => ROWS.flatMap((r) => pick(r) ?? []);

describe('schema.graphql and the attribute table', () => {
  it('BusinessIdentity shows exactly the attributes with a GraphQL field, beside the service fields', () => {
    expect(sorted(fieldsOf('BusinessIdentity').keys())).toEqual(
      sorted([...column((r) => r.graphql), ...SERVICE_FIELDS]),
    );
  });

  it('BusinessIdentity shows no value of a sensitive attribute: only lists of their kinds', () => {
    const fields = fieldsOf('BusinessIdentity');
    for (const row of ROWS.filter((r) => r.sensitive)) {
      const type = fields.get(row.graphql ?? '');
      expect(type).toBeDefined();
      const kinds = row.items?.find((f) => f.name === 'type')?.values?.map((v) => v.graphql);
      expect(enumValues(namedType(type!))).toEqual(kinds);
    }
  });

  it('ImportBusinessIdentityInput carries exactly the import fields, required where the model requires them', () => {
    const fields = fieldsOf('ImportBusinessIdentityInput');
    expect(sorted(fields.keys())).toEqual(sorted(column((r) => r.importField)));
    for (const row of ROWS.filter((r) => r.importField !== undefined)) {
      const type = fields.get(row.importField!)!;
      expect({ field: row.importField, required: nonNull(type) }).toEqual({
        field: row.importField,
        required: !row.optional && row.type !== 'list',
      });
    }
  });

  it('UpdateBusinessIdentityInput carries the id and exactly the update fields, none required', () => {
    const fields = fieldsOf('UpdateBusinessIdentityInput');
    expect(sorted(fields.keys())).toEqual(sorted(['id', ...column((r) => r.updateField)]));
    for (const row of ROWS.filter((r) => r.updateField !== undefined))
      expect({ field: row.updateField, required: nonNull(fields.get(row.updateField!)!) }).toEqual({
        field: row.updateField,
        required: false,
      });
  });

  it('enumerations and list items have the values and fields of the table', () => {
    const fields = fieldsOf('ImportBusinessIdentityInput');
    for (const row of ROWS.filter((r) => r.importField !== undefined)) {
      const type = namedType(fields.get(row.importField!)!);
      if (row.values !== undefined) expect(enumValues(type)).toEqual(row.values.map((v) => v.graphql));
      if (row.items === undefined) continue;
      const items = fieldsOf(type);
      expect([...items.keys()]).toEqual(row.items.map((f) => f.name));
      for (const f of row.items)
        if (f.values !== undefined)
          expect(enumValues(namedType(items.get(f.name)!))).toEqual(f.values.map((v) => v.graphql));
    }
  });
});

describe('identityView', () => {
  const doc = {
    id: 'id-1',
    pk: 't|int',
    tenantId: 't',
    sourceKind: 'scim',
    sourceKey: 'int',
    externalIdKey: 'e-1',
    userNameKey: 'anna',
    externalId: 'e-1',
    userName: 'anna',
    givenName: 'Anna',
    familyName: 'Berg',
    active: true,
    affiliationType: 'enrollment',
    nationality: 'DK',
    personalEmail: 'anna@home.example',
    personalPhone: '+4512345678',
    personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
    identityDocumentReferences: [
      { type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1234567' },
      { type: 'Passport', issuingCountry: 'SE', documentNumber: 'P7654321' },
    ],
    link: { status: 'notAsserted' },
    created: '2026-01-01T00:00:00.000Z',
    lastModified: '2026-01-01T00:00:00.000Z',
    version: 1,
    hasSensitive: true,
  } satisfies IdentityDoc;

  it('has a value for every field of BusinessIdentity', () => {
    const view = identityView(doc, 'Dev SCIM');
    expect(sorted(Object.keys(view))).toEqual(sorted(fieldsOf('BusinessIdentity').keys()));
  });

  it('shows the attributes by their GraphQL names, absent ones as null, and only the kinds of sensitive lists', () => {
    const view = identityView(doc, 'Dev SCIM');
    expect(view).toMatchObject({
      externalId: 'e-1',
      userName: 'anna',
      affiliationType: 'ENROLLMENT',
      firstName: 'Anna',
      lastName: 'Berg',
      active: true,
      birthDate: null,
      nationality: 'DK',
      personalNumberTypes: ['DK_CPR'],
      identityDocumentTypes: ['PASSPORT'],
      directoryUserPrincipalName: null,
    });
    const shown = JSON.stringify(view);
    for (const hidden of ['0101901234', 'P1234567', 'anna@home.example', '+4512345678'])
      expect(shown).not.toContain(hidden);
  });
});
