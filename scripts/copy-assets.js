// Copies non-TypeScript assets the code reads at run time into the build output.
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(__dirname, '..');
for (const rel of ['lib/graphql/schema.graphql']) {
  const to = path.join(root, 'dist', rel);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(path.join(root, rel), to);
}
// Marks the build as current for scripts/buildIfStale.js.
fs.writeFileSync(path.join(root, 'dist', '.build-stamp'), `${new Date().toISOString()}\n`);
