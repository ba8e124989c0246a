import fs from 'node:fs';
import path from 'node:path';
import { CORE_USER_SCHEMA, SERVICE_USER_SCHEMA, schemaResource } from '../../../lib/scim/schema';

/** The schemas as served before they were derived from the attribute table (a difference must be a deliberate fix). */
const SERVED = path.join(__dirname, 'fixtures', 'schemas.json');

describe('the User schemas at /Schemas', () => {
  it('are served byte for byte as recorded', () => {
    const served = {
      core: schemaResource('https://host.example', CORE_USER_SCHEMA),
      service: schemaResource('https://host.example', SERVICE_USER_SCHEMA),
    };
    // Parsing keeps the recorded order of keys, so equal strings are the same bytes on the wire.
    const recorded: unknown = JSON.parse(fs.readFileSync(SERVED, 'utf8'));
    expect(JSON.stringify(served)).toBe(JSON.stringify(recorded));
  });

  it('knows no other schema', () => {
    expect(schemaResource('https://host.example', 'urn:example:other')).toBeUndefined();
  });
});
