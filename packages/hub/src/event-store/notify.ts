import type pg from 'pg';

export const EVENTS_CHANNEL = 'fleetplane_events';

/** The shortest time between two notifications of one Hub: what a log follower may wait beyond a commit. */
export const NOTIFY_INTERVAL_MS = 50;

/**
 * Wakes log followers after a commit. Sent outside the appending transaction on purpose: a NOTIFY inside
 * it would take PostgreSQL's global notify lock across the commit and serialize every append.
 * A call after a quiet interval notifies at once; calls made while a notification is in flight, or within
 * `intervalMs` of the last one, collapse into one more, `intervalMs` after the last. Each notification is a
 * statement of its own on a pooled connection: sent after every commit, under load they went out back to back,
 * for followers that read the log in pages anyway (docs/decisions.md, "Event store").
 */
export function eventsNotifier(pool: pg.Pool, intervalMs = NOTIFY_INTERVAL_MS): () => void {
  let lastSent = -Infinity;
  /** A notification is in flight or scheduled. */
  let busy = false;
  /** A commit came while a notification was in flight: one more is due after it. */
  let again = false;
  const sendAfterInterval = () => {
    const wait = lastSent + intervalMs - performance.now();
    if (wait <= 0) send();
    else setTimeout(send, wait).unref();
  };
  const send = (): void => {
    again = false;
    lastSent = performance.now();
    pool
      .query(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`)
      .catch(() => {}) // followers poll as well; a lost wake-up only delays them
      .finally(() => {
        if (again) sendAfterInterval();
        else busy = false;
      });
  };
  return () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    sendAfterInterval();
  };
}
