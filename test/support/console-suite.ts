import { launchBrowser, type Browser } from './browser.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { startTestHub, type TestHub } from './hub.ts';

export interface ConsoleSuite {
  readonly t: TestDatabase;
  readonly hub: TestHub;
  readonly browser: Browser;
}

/**
 * A console suite's fixtures, declared in its `describeInBrowser` body: before its tests, a test database, a
 * Hub on it, `prepare` (the fleet the suite starts from) and a browser; after them, all three stopped; after
 * each test, no console error may have been seen. The fields are set once the suite's tests run.
 */
export function consoleSuite(options: Parameters<typeof startTestHub>[1], prepare?: (hub: TestHub) => Promise<void>): ConsoleSuite {
  const suite = {} as { t: TestDatabase; hub: TestHub; browser: Browser };
  beforeAll(async () => {
    suite.t = await createTestDatabase();
    suite.hub = await startTestHub(suite.t.url, options);
    await prepare?.(suite.hub);
    suite.browser = await launchBrowser();
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.hub?.stop();
    await suite.t?.drop();
  });
  afterEach(() => {
    expect(suite.browser.errors).toEqual([]);
  });
  return suite;
}
