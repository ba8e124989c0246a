// Runs before `npm start`, `npm run ops` and `npm run import`: builds dist/ only when a source file is
// newer than the last build (dist/.build-stamp, written by `npm run build`), so the tools start at once.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const SOURCES = [
  'lib',
  'functions',
  'devhost',
  'scripts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];

/** Newest modification time (ms) under a file or folder. */
function newest(p) {
  let stat;
  try {
    stat = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = stat.mtimeMs;
  for (const name of fs.readdirSync(p)) max = Math.max(max, newest(path.join(p, name)));
  return max;
}

function builtAt() {
  try {
    return fs.statSync(stamp).mtimeMs;
  } catch {
    return -1;
  }
}

const sourcesAt = Math.max(...SOURCES.map((s) => newest(path.join(root, s))));
if (builtAt() < sourcesAt) {
  process.stderr.write(
    builtAt() < 0 ? 'Building dist/ (first run)…\n' : 'Building dist/ (sources changed since the last build)…\n',
  );
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  const assets = spawnSync(process.execPath, [path.join(__dirname, 'copy-assets.js')], { cwd: root, stdio: 'inherit' });
  if (assets.status !== 0) process.exit(assets.status ?? 1);
}

// The administrator console (console/ -> dist/console-app/), built with Vite when its sources changed.
const consoleIndex = path.join(root, 'dist', 'console-app', 'index.html');
const consoleBuiltAt = (() => {
  try {
    return fs.statSync(consoleIndex).mtimeMs;
  } catch {
    return -1;
  }
})();
const consoleSourcesAt = Math.max(...['console', 'package-lock.json'].map((s) => newest(path.join(root, s))));
if (consoleBuiltAt < consoleSourcesAt) {
  process.stderr.write('Building the console (dist/console-app)…\n');
  const vite = spawnSync(
    process.execPath,
    [
      path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js'),
      'build',
      '--config',
      'console/vite.config.ts',
      '--logLevel',
      'warn',
    ],
    { cwd: root, stdio: 'inherit' },
  );
  if (vite.status !== 0) process.exit(vite.status ?? 1);
}
