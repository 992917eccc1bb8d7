import type { Clock } from './clock.ts';
import { logFailure, outageLine, type Logger } from './logger.ts';

/** How often a duty that keeps failing says so again, at most. */
export const STILL_FAILING_EVERY_MS = 60_000;

/**
 * What a Hub's duties that fail again and again while an outage lasts (the lease sweep and the identity
 * check once a second, the job queue's workers, the channels, requests answered 503) log, as journald and
 * klog fold repeats: the first failure of a duty, keyed by its name and not by the error's text, at warn
 * as logFailure says it; its repeats counted, with one `still failing` line at most every
 * STILL_FAILING_EVERY_MS; and one info line at its first success after failures. An error no outage
 * explains (a bug) is logged at error each time and is not counted.
 */
export interface RepeatedFailures {
  failed(duty: Duty, error: unknown, fields?: Record<string, unknown>): void;
  /**
   * The duty worked. A duty that never says so (the job queue, the pool) is told by the Hub when the
   * database answers, with `quietMs`: its run ends only once it has not failed for that long, since the
   * database answering a read says nothing of writes.
   */
  succeeded(duty: Duty, quietMs?: number): void;
}

/**
 * A duty of the Hub that may fail again and again: `name` is its `duty` field on every line and its label on
 * fleetplane_background_failures_total (snake_case, one per duty, for alert rules); `failed` begins each line.
 */
export interface Duty {
  readonly name: string;
  readonly failed: string;
}

interface Failing {
  since: Date;
  failures: number;
  /** When this duty last logged a line, and last failed. */
  said: number;
  last: number;
}

/** One per Hub: its duties' runs of failures, timed on `clock`; `onFailure` counts every failure an outage explains. */
export function repeatedFailures(logger: Logger, clock: Clock, onFailure: (duty: string) => void = () => {}): RepeatedFailures {
  const failing = new Map<string, Failing>();
  return {
    failed(duty, error, given = {}) {
      const fields = { duty: duty.name, ...given };
      const line = outageLine(duty.failed, error, fields);
      if (!line) return logFailure(logger, duty.failed, error, fields);
      onFailure(duty.name);
      const now = clock.now();
      const run = failing.get(duty.name);
      if (!run) {
        failing.set(duty.name, { since: now, failures: 1, said: now.getTime(), last: now.getTime() });
        return void logger.warn(line.message, line.fields);
      }
      run.failures += 1;
      run.last = now.getTime();
      if (now.getTime() - run.said < STILL_FAILING_EVERY_MS) return;
      run.said = now.getTime();
      logger.warn(`${duty.failed}: still failing, ${run.failures} times since ${run.since.toISOString()}`, { ...line.fields, failures: run.failures, since: run.since.toISOString() });
    },
    succeeded(duty, quietMs = 0) {
      const run = failing.get(duty.name);
      const now = clock.now().getTime();
      if (!run || now - run.last < quietMs) return;
      failing.delete(duty.name);
      const seconds = Math.round((now - run.since.getTime()) / 1000);
      logger.info(`${duty.failed}: recovered after ${seconds} s, ${run.failures} failures`, { duty: duty.name, failures: run.failures, seconds, since: run.since.toISOString() });
    },
  };
}
