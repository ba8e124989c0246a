import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { Q } from '../src/api';

const schema = buildSchema(
  fs.readFileSync(path.resolve(__dirname, '..', '..', 'lib', 'graphql', 'schema.graphql'), 'utf8'),
);

describe('the console operations', () => {
  it.each(Object.entries(Q))('%s is valid against schema.graphql', (_name, document) => {
    expect(validate(schema, parse(document.toString())).map((e) => e.message)).toEqual([]);
  });

  it('never selects a personal number or document number', () => {
    for (const document of Object.values(Q))
      expect(document.toString()).not.toMatch(/\bvalue\b|documentNumber|personalNumbers\s*\{/);
  });
});
