import { createTestDatabase, type TestDatabase } from './database.ts';
import { startTestHub, type TestHub } from './hub.ts';

export interface HubSuite {
  readonly t: TestDatabase;
  readonly hub: TestHub;
}

/**
 * A test database and a Hub on it for the tests of the file (or block) that declares it: started before them,
 * stopped and dropped after them. The fields are set once the tests run.
 */
export function hubSuite(options: Parameters<typeof startTestHub>[1] = {}): HubSuite {
  const suite = {} as { t: TestDatabase; hub: TestHub };
  beforeAll(async () => {
    suite.t = await createTestDatabase();
    suite.hub = await startTestHub(suite.t.url, options);
  });
  afterAll(async () => {
    await suite.hub?.stop();
    await suite.t?.drop();
  });
  return suite;
}
