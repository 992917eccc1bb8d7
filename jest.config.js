// Tests are TypeScript run through SWC as CommonJS. pg-boss 12 and a few of its dependencies ship ESM only,
// so they are transformed too instead of being ignored like the rest of node_modules.
const esmOnly = ['pg-boss', 'serialize-error', 'non-error', 'cron-parser', 'rrule-temporal', 'luxon', 'temporal-polyfill'];

const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
    module: { type: 'commonjs' },
  },
];

export default {
  testEnvironment: '<rootDir>/test/support/environment.ts',
  roots: ['<rootDir>/packages', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
