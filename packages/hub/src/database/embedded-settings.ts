import { DEADLOCK_TIMEOUT_MS } from './deadlock-timeout.ts';

/** What the embedded server runs with, beyond PostgreSQL's defaults. */
export const EMBEDDED_SETTINGS = [
  // See deadlock-timeout.ts: a deadlock between group-committed transactions is broken after 100 ms, not 1 s.
  `deadlock_timeout=${DEADLOCK_TIMEOUT_MS}ms`,
  // A new WAL segment is not filled with 16 MB of zeros first. Under fleet load the log fills a segment
  // every second or two, and the commit that opened a new one waited 100-200 ms for the zeros, with every
  // commit behind it: most of the slowest reports' latency (docs/decisions.md, "Report ingestion at fleet
  // scale"). The cost: a full disk shows at a WAL write, not when a segment is created; either way
  // PostgreSQL stops writing.
  'wal_init_zero=off',
];
