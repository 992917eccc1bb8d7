import { DEADLOCK_TIMEOUT_MS } from './deadlock-timeout.ts';

/** What the embedded server runs with, beyond PostgreSQL's defaults. */
export const EMBEDDED_SETTINGS = [
  // See deadlock-timeout.ts: a deadlock between group-committed transactions is broken after 100 ms, not 1 s.
  `deadlock_timeout=${DEADLOCK_TIMEOUT_MS}ms`,
  // A new WAL segment is not filled with 16 MB of zeros first. Under fleet load the log fills segments
  // often, and the commit that opened a new one waited for the zeros, with every commit behind it: most of
  // the slowest reports' latency (docs/decisions.md, "Report ingestion at fleet scale"). The cost: a full
  // disk shows at a WAL write, not when a segment is created; either way PostgreSQL stops writing.
  'wal_init_zero=off',
  // Checkpoints a few minutes apart under fleet load, not one a minute. Reports write WAL fast, and the
  // default (1 GB) starts a checkpoint after about half of it; while one runs, the first change to each
  // page after it logs the whole page, and commits wait longer. The cost: up to 4 GB of WAL on
  // disk under load (idle, it shrinks back), and a longer recovery after a crash.
  'max_wal_size=4GB',
];
