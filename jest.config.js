// Tests are TypeScript run through SWC as CommonJS. jose, pg-boss 12, the OpenAPI validator's reference parser and a
// few of their dependencies ship ESM only, so they are transformed too instead of being ignored like the rest
// of node_modules.
const esmOnly = [
  'jose',
  'pg-boss',
  'serialize-error',
  'non-error',
  'cron-parser',
  'rrule-temporal',
  'luxon',
  'temporal-polyfill',
  '@apidevtools/json-schema-ref-parser',
  'js-yaml',
];

const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
    module: { type: 'commonjs' },
  },
];

const shared = {
  rootDir: import.meta.dirname,
  testEnvironment: '<rootDir>/test/support/environment.ts',
  roots: ['<rootDir>/packages', '<rootDir>/test', '<rootDir>/scripts'],
  transform: { '^.+\\.(t|j)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
};

// Tests that touch no database: core's decisions and the parts that run without PostgreSQL. Everything else,
// a new test file included, is an integration test.
const unit = [
  '/packages/core/src/.*\\.test\\.ts$',
  '/packages/console/src/.*\\.test\\.ts$',
  '/packages/agent/src/(agent|control-server|journal)\\.test\\.ts$',
  '/packages/agent/src/executors/.*\\.test\\.ts$',
  '/packages/hub/src/(config|metrics|time-ordered-id|http/oidc|database/batched-lookup)\\.test\\.ts$',
  '/packages/hub/src/archive/(destination|destination-url|segment)\\.test\\.ts$',
  '/test/agent-cli\\.test\\.ts$',
  '/scripts/bench/tools/.*\\.test\\.ts$',
];

export default {
  projects: [
    { ...shared, displayName: 'unit', testRegex: unit },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...unit],
      // One PostgreSQL server for the integration run (test/support/global-setup.ts); unit tests need none.
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  testTimeout: 30000,
  maxWorkers: 2,
};
