import type { Pool } from 'pg';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';

/** How often a Hub measures its host's clock against the database's: a host clock stepped is caught this soon. */
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
 * The Hub's clock: its host's, less the host's offset from PostgreSQL's. Hubs decide on times that other Hubs
 * and the database read back (a lease one Hub hands out and every Hub sweeps, a node's last contact one Hub
 * records and every Hub ages, a soak one Hub starts and another ends, a job pg-boss runs at the database's
 * time): on one reference, they agree however far their hosts' clocks are apart (docs/decisions.md, "One
 * clock for every Hub"). Measured at start, which waits for it, then every `everyMs`; a measurement the
 * database does not answer keeps the last offset.
 */
export async function startDatabaseClock(
  pool: Pool,
  host: Clock,
  options: { logger: Logger; everyMs?: number; onMeasured?: (offsetMs: number) => void },
): Promise<DatabaseClock> {
  const { logger } = options;
  let offset = await measureOffset(pool, host);
  let said = false;
  const say = () => {
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
  const timer = setInterval(() => {
    measureOffset(pool, host).then(
      (measured) => {
        offset = measured;
        say();
      },
      () => {}, // the database away: the failures of the Hub's own work say so; the last offset holds meanwhile
    );
  }, options.everyMs ?? CLOCK_CHECK_EVERY_MS);
  timer.unref();
  return {
    now: () => new Date(host.now().getTime() - offset),
    offsetMs: () => offset,
    stop: () => clearInterval(timer),
  };
}

/** The host's clock less the database's, from the round trip of SAMPLES that took least: within half of it. */
async function measureOffset(pool: Pool, host: Clock): Promise<number> {
  let best = { roundTrip: Infinity, offset: 0 };
  for (let i = 0; i < SAMPLES; i++) {
    const sent = host.now().getTime();
    const { rows } = await pool.query<{ now: Date }>('SELECT clock_timestamp() AS now');
    const received = host.now().getTime();
    // A host clock stepped back during the round trip measures nothing.
    if (received >= sent && received - sent < best.roundTrip) best = { roundTrip: received - sent, offset: (sent + received) / 2 - rows[0]!.now.getTime() };
  }
  return best.offset;
}
