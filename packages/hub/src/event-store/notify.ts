import type pg from 'pg';

export const EVENTS_CHANNEL = 'fleetplane_events';

/**
 * Wakes log followers after a commit. Sent outside the appending transaction on purpose: a NOTIFY inside
 * it would take PostgreSQL's global notify lock across the commit and serialize every append.
 * Calls made while one is in flight collapse into a single follow-up notification.
 */
export function eventsNotifier(pool: pg.Pool): () => void {
  let inFlight = false;
  let again = false;
  const send = (): void => {
    inFlight = true;
    again = false;
    pool
      .query(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`)
      .catch(() => {}) // followers poll as well; a lost wake-up only delays them
      .finally(() => {
        inFlight = false;
        if (again) send();
      });
  };
  return () => {
    if (inFlight) again = true;
    else send();
  };
}
