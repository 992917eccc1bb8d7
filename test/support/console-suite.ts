import { launchBrowser, type Browser } from './browser.ts';
import { hubSuite, type HubSuite } from './hub-suite.ts';
import type { startTestHub, TestHub } from './hub.ts';

export interface ConsoleSuite extends HubSuite {
  readonly browser: Browser;
}

/**
 * A console suite's fixtures, declared in its `describeInBrowser` body: a test database and a Hub on it
 * (hubSuite), then `prepare` (the fleet the suite starts from) and a browser; after the tests, all stopped;
 * after each test, no console error may have been seen. The fields are set once the suite's tests run.
 */
export function consoleSuite(options: Parameters<typeof startTestHub>[1], prepare?: (hub: TestHub) => Promise<void>): ConsoleSuite {
  const hub = hubSuite(options);
  let browser: Browser;
  beforeAll(async () => {
    await prepare?.(hub.hub);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(() => {
    expect(browser.errors).toEqual([]);
  });
  return {
    get t() {
      return hub.t;
    },
    get hub() {
      return hub.hub;
    },
    get browser() {
      return browser;
    },
  };
}
