/** Unit tests, integration tests over the in-process local stack, and browser tests of the console. */
const shared = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  // The dev host provides the Functions host's core API, as the real host does.
  moduleNameMapper: { '^@azure/functions-core$': '<rootDir>/devhost/functionsCore.ts' },
};

module.exports = {
  testTimeout: 60000,
  // Three workers even on a 2-core machine: the longest integration suites wait on timers, leases and a throttled
  // store, not the CPU (a whole CI run keeps about 1.0 of 2 cores busy with three; `npm test` took 179 s vs 272 s with two).
  maxWorkers: 3,
  reporters: ['default', '<rootDir>/tests/support/summaryReporter.js'],
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.test.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts'],
    },
    // The administrator console in headless Chromium (npm run test:e2e builds the console first).
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'] },
  ],
};
