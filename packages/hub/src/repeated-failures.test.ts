import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger } from './logger.ts';
import { repeatedFailures, STILL_FAILING_EVERY_MS, type Duty } from './repeated-failures.ts';

// README, "While the database is away": a duty failing once a second through an outage logs its first failure,
// a line a minute while it lasts, and one when it works again; a bug is never folded.
const lines: Array<Record<string, any>> = [];
const logger = createLogger('info', false, [
  new winston.transports.Stream({
    stream: new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  }),
]);
let now = Date.parse('2026-12-07T10:00:00Z');
const clock = { now: () => new Date(now) };
const refused = (port: number) => Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: 'ECONNREFUSED' });
const sweep: Duty = { name: 'lease_sweep', failed: 'lease sweep failed' };
const resync: Duty = { name: 'resync', failed: 'resync failed' };
const identity: Duty = { name: 'identity_check', failed: "checking the database's identity failed" };
const jobQueue: Duty = { name: 'job_queue', failed: 'job queue error' };
const said = () => lines.splice(0).map((l) => [l.level, l.message]);

beforeEach(() => {
  lines.length = 0;
});

test('a duty failing every second for 150 s: its first failure at warn, a line a minute with the count, and one info line at its first success', () => {
  const counted: string[] = [];
  const duties = repeatedFailures(logger, clock, (duty) => counted.push(duty));
  for (let s = 0; s < 150; s++) {
    duties.failed(sweep, refused(s)); // the error's text differs every time
    duties.succeeded(resync); // another duty working says nothing
    now += 1000;
  }
  duties.succeeded(sweep);
  duties.succeeded(sweep);
  // Every line names its duty, as the counter's label does.
  expect(new Set(lines.map((l) => l.duty))).toEqual(new Set(['lease_sweep']));
  expect(said()).toEqual([
    ['warn', 'lease sweep failed: the database is unavailable'],
    ['warn', 'lease sweep failed: still failing, 61 times since 2026-12-07T10:00:00.000Z'],
    ['warn', 'lease sweep failed: still failing, 121 times since 2026-12-07T10:00:00.000Z'],
    ['info', 'lease sweep failed: recovered after 150 s, 150 failures'],
  ]);
  expect(counted).toEqual(Array(150).fill('lease_sweep'));
  // Failing again after the recovery is a new run: said at once.
  duties.failed(sweep, refused(1));
  expect(said()).toEqual([['warn', 'lease sweep failed: the database is unavailable']]);
});

test('duties are folded each by its own name, and one instance knows nothing of another', () => {
  const one = repeatedFailures(logger, clock);
  const other = repeatedFailures(logger, clock);
  one.failed(sweep, refused(1));
  one.failed(identity, refused(1));
  one.failed(sweep, refused(2));
  other.failed(sweep, refused(3));
  expect(said()).toEqual([
    ['warn', 'lease sweep failed: the database is unavailable'],
    ['warn', "checking the database's identity failed: the database is unavailable"],
    ['warn', 'lease sweep failed: the database is unavailable'],
  ]);
  now += STILL_FAILING_EVERY_MS;
  other.succeeded(sweep);
  expect(said()).toEqual([['info', 'lease sweep failed: recovered after 60 s, 1 failures']]);
});

test('a duty that never says it works is told so when the database answers: its run ends only once it has not failed for the quiet time', () => {
  const duties = repeatedFailures(logger, clock);
  duties.failed(jobQueue, refused(1));
  now += 4000;
  duties.failed(jobQueue, refused(2)); // a read works, its writes still fail (a read-only server)
  now += 1000;
  duties.succeeded(jobQueue, 5000);
  now += 3000;
  duties.succeeded(jobQueue, 5000);
  expect(said()).toEqual([['warn', 'job queue error: the database is unavailable']]);
  now += 1000;
  duties.succeeded(jobQueue, 5000);
  expect(said()).toEqual([['info', 'job queue error: recovered after 9 s, 2 failures']]);
});

test('an error no outage explains is logged at error every time, with its stack, and neither counted nor folded', () => {
  const counted: string[] = [];
  const duties = repeatedFailures(logger, clock, (duty) => counted.push(duty));
  duties.failed(sweep, new TypeError('cannot read properties of undefined'));
  duties.failed(sweep, new TypeError('cannot read properties of undefined'));
  duties.succeeded(sweep);
  expect(lines.map((l) => [l.level, l.message, typeof l.error.stack])).toEqual([
    ['error', 'lease sweep failed', 'string'],
    ['error', 'lease sweep failed', 'string'],
  ]);
  expect(counted).toEqual([]);
});
