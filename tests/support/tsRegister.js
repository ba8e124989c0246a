/**
 * Under ts-jest there is no build: a process of the local fleet started by a test (its instances, its front)
 * compiles each TypeScript file with esbuild as it is required (a few ms each; `npm test` on a fresh clone needs
 * nothing built first).
 */
const fs = require('node:fs');
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
