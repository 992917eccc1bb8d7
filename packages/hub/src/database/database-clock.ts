import type { Pool } from 'pg';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';

/** How often a Hub reads the database's clock again; between two readings its monotonic clock carries it on. */
export const CLOCK_CHECK_EVERY_MS = 10_000;

/** An offset from the database's clock past this is said (a `warn` line): hosts on NTP are within milliseconds. */
export const CLOCK_OFFSET_WARN_MS = 1_000;

/** Round trips per measurement: the shortest bounds its error best (half of it). */
const SAMPLES = 3;

export interface DatabaseClock extends Clock {
  /** The host's clock less the database's, as last measured, in milliseconds. */
  offsetMs(): number;
  stop(): void;
}

/**
 * The Hub's clock: PostgreSQL's, as last measured, carried on by the monotonic clock. Hubs decide on times
 * that other Hubs and the database read back (a lease one Hub hands out and every Hub sweeps, a node's last
 * contact one Hub records and every Hub ages, a soak one Hub starts and another ends, a job pg-boss runs at
 * the database's time): on one reference, they agree however far their hosts' clocks are apart, and a step
 * of the host's clock (NTP, an operator's `date`) between two measurements moves nothing (docs/decisions.md,
 * "One clock for every Hub"). Measured at start, which waits for it, then every `everyMs`; a measurement the
 * database does not answer keeps the last one. `host` is the wall clock whose offset is reported.
 */
export async function startDatabaseClock(
  pool: Pool,
  host: Clock,
  options: { logger: Logger; everyMs?: number; onMeasured?: (offsetMs: number) => void },
): Promise<DatabaseClock> {
  const { logger } = options;
  let anchor = await measure(pool, host);
  let said = false;
  const say = () => {
    const offset = anchor.hostOffsetMs;
    options.onMeasured?.(offset);
    const off = Math.abs(offset) >= CLOCK_OFFSET_WARN_MS;
    if (off && !said) {
      logger.warn("this host's clock is off the database server's: the Hub decides on the database's time, but its log lines and ids carry the host's; put both on NTP", {
        host_clock_offset_ms: Math.round(offset),
      });
    } else if (!off && said) {
      logger.info("this host's clock is back within a second of the database server's", { host_clock_offset_ms: Math.round(offset) });
    }
    said = off;
  };
  say();
  // One measurement at a time: on a server that stopped answering, each would hold a connection of the pool.
  let measuring = false;
  const timer = setInterval(() => {
    if (measuring) return;
    measuring = true;
    measure(pool, host)
      .then(
        (measured) => {
          anchor = measured;
          say();
        },
        () => {}, // the database away: the failures of the Hub's own work say so; the last measurement holds meanwhile
      )
      .finally(() => (measuring = false));
  }, options.everyMs ?? CLOCK_CHECK_EVERY_MS);
  timer.unref();
  return {
    now: () => new Date(anchor.databaseMs + (performance.now() - anchor.monotonicMs)),
    offsetMs: () => anchor.hostOffsetMs,
    stop: () => clearInterval(timer),
  };
}

interface Measurement {
  /** The database's clock at the middle of the round trip, … */
  databaseMs: number;
  /** … the monotonic clock's then, … */
  monotonicMs: number;
  /** … and the host's wall clock less the database's. */
  hostOffsetMs: number;
}

/**
 * The round trip of SAMPLES that took least: its error is at most half of it. On a connection held for all
 * of them: a wait for one from a busy pool would count in the round trip, all of it on the way out.
 */
async function measure(pool: Pool, host: Clock): Promise<Measurement> {
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    let best: (Measurement & { roundTrip: number }) | null = null;
    for (let i = 0; i < SAMPLES; i++) {
      const [sent, sentWall] = [performance.now(), host.now().getTime()];
      const { rows } = await client.query<{ now: Date }>('SELECT clock_timestamp() AS now');
      const [received, receivedWall] = [performance.now(), host.now().getTime()];
      const databaseMs = rows[0]!.now.getTime();
      if (best === null || received - sent < best.roundTrip) {
        best = { roundTrip: received - sent, databaseMs, monotonicMs: (sent + received) / 2, hostOffsetMs: (sentWall + receivedWall) / 2 - databaseMs };
      }
    }
    return best!;
  } catch (error) {
    failed = error as Error;
    throw error;
  } finally {
    // A connection that failed is closed, not pooled again.
    client.release(failed);
  }
}
