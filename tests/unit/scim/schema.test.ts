import fs from 'node:fs';
import path from 'node:path';
import { IDENTITY_ATTRIBUTES } from '../../../lib/identities/attributes';
import { CORE_USER_SCHEMA, SERVICE_USER_SCHEMA, schemaResource } from '../../../lib/scim/schema';

interface SchemaResource {
  attributes: Array<{ name: string }>;
}

/** The schemas as served before they were derived from the attribute table (a difference must be a deliberate fix). */
const SERVED = path.join(__dirname, 'fixtures', 'schemas.json');

describe('the User schemas at /Schemas', () => {
  it('are served byte for byte as recorded, but for attributes added to the table since', () => {
    const recorded = JSON.parse(fs.readFileSync(SERVED, 'utf8')) as Record<'core' | 'service', SchemaResource>;
    const table = new Set<string>(IDENTITY_ATTRIBUTES.map((r) => r.scim.path.split('.')[0] ?? ''));
    for (const [key, id] of [
      ['core', CORE_USER_SCHEMA],
      ['service', SERVICE_USER_SCHEMA],
    ] as const) {
      const served = schemaResource('https://host.example', id) as unknown as SchemaResource;
      const known = new Set(recorded[key].attributes.map((a) => a.name));
      const added = served.attributes.filter((a) => !known.has(a.name)).map((a) => a.name);
      for (const name of added) expect({ name, inTable: table.has(name) }).toEqual({ name, inTable: true });
      const same = { ...served, attributes: served.attributes.filter((a) => known.has(a.name)) };
      // Parsing keeps the recorded order of keys, so equal strings are the same bytes on the wire.
      expect(JSON.stringify(same)).toBe(JSON.stringify(recorded[key]));
    }
  });

  it('knows no other schema', () => {
    expect(schemaResource('https://host.example', 'urn:example:other')).toBeUndefined();
  });
});
