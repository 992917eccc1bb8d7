import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { listen, type Listener } from '../database/listener.ts';
import { EVENTS_CHANNEL, eventsNotifier } from './notify.ts';

let t: TestDatabase;
let listener: Listener;
/** When each notification on the events channel arrived (performance.now()). */
const arrivals: number[] = [];
let arrived = () => {};

beforeAll(async () => {
  t = await createTestDatabase();
  listener = await listen(t.url, EVENTS_CHANNEL, {
    applicationName: 'fleetplane-notify-test',
    onNotification: () => {
      arrivals.push(performance.now());
      arrived();
    },
    onReconnected: () => {},
    onError: () => {},
  });
});
afterAll(async () => {
  await listener.stop();
  await t.drop();
});

/** Resolves once `count` notifications have arrived in all. */
function arrivalsReach(count: number): Promise<void> {
  return new Promise((resolve) => {
    arrived = () => {
      if (arrivals.length >= count) resolve();
    };
    arrived();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// An interval long enough that the machine's noise cannot blur "at once" and "after the interval".
const INTERVAL_MS = 1000;

test('J4: commits in a burst wake log followers at once and once more after the interval, not once each', async () => {
  const notify = eventsNotifier(t.pool, INTERVAL_MS);
  const first = performance.now();
  for (let i = 0; i < 20; i++) notify();
  await arrivalsReach(1);
  expect(arrivals[0]! - first).toBeLessThan(INTERVAL_MS);
  await arrivalsReach(2);
  // The second is sent no sooner than the interval after the first was (timers never fire early by a millisecond).
  expect(arrivals[1]! - first).toBeGreaterThanOrEqual(INTERVAL_MS - 1);
  await sleep(INTERVAL_MS * 1.5);
  expect(arrivals).toHaveLength(2);

  // After a quiet interval, a commit notifies at once, not an interval later.
  const quiet = performance.now();
  notify();
  await arrivalsReach(3);
  expect(arrivals[2]! - quiet).toBeLessThan(INTERVAL_MS);
  await sleep(INTERVAL_MS * 1.5);
  expect(arrivals).toHaveLength(3);
}, 20_000);
