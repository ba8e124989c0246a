// `npm run infra:build`: compiles the Bicep when the Bicep CLI is on PATH; otherwise says so and succeeds.
const { spawnSync } = require('node:child_process');
const probe = spawnSync('bicep', ['--version'], { encoding: 'utf8' });
if (probe.error) {
  console.log(
    'Bicep CLI not found on PATH: skipped compiling infra/main.bicep (the structural test in tests/unit/infra still runs).',
  );
  process.exit(0);
}
const result = spawnSync('bicep', ['build', 'infra/main.bicep', '--stdout'], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
process.exit(result.status ?? 1);
