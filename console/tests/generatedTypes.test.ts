// @vitest-environment node
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import config from '../codegen';

describe('the generated operation types', () => {
  it('are what `npm run console:types` makes from the schema and the documents today', async () => {
    const files = (await generate({ ...config, silent: true }, false)) as Array<{ filename: string; content: string }>;
    expect(files.length).toBeGreaterThan(0);
    for (const { filename, content } of files) {
      const committed = fs.existsSync(filename) ? fs.readFileSync(filename, 'utf8') : '(missing)';
      expect(committed, `${path.relative(process.cwd(), filename)} is stale: run npm run console:types`).toBe(content);
    }
  }, 60_000);
});
