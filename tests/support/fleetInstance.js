/**
 * The entry of an instance of the local fleet started by a test (tests/support/stack.ts, startTestFleet): under
 * ts-jest there is no build, so each TypeScript file is compiled by esbuild as it is required (a few ms each;
 * `npm test` on a fresh clone needs nothing built first), then devhost/instance.ts runs as `npm start` runs its
 * compiled form.
 */
const fs = require('node:fs');
const path = require('node:path');
const { transformSync } = require('esbuild');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    loader: 'ts',
    format: 'cjs',
    target: 'node22',
    sourcefile: filename,
    sourcemap: 'inline',
  });
  module._compile(code, filename);
};

require(path.resolve(__dirname, '..', '..', 'devhost', 'instance.ts'));
