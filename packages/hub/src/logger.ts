import winston from 'winston';
import { ArchiveError } from './archive/archive-error.ts';
import { databaseUnavailability, UNAVAILABLE_SAYS } from './database/unavailable.ts';
import { ConfigError } from './start-failure.ts';

export type Logger = winston.Logger;

/**
 * Errors in log fields become their message, code and stack: a driver error object also carries its
 * connection, which must never reach a log line whole.
 */
const errorFields = winston.format((info) => {
  for (const [k, v] of Object.entries(info)) {
    if (v instanceof Error) {
      const { code } = v as { code?: string };
      info[k] = { message: v.message, ...(code ? { code } : {}), stack: v.stack };
    }
  }
  return info;
});

/** The levels FLEETPLANE_LOG_LEVEL takes, as winston names them, most severe first. */
export const LOG_LEVELS = Object.keys(winston.config.npm.levels);

/**
 * FLEETPLANE_LOG_LEVEL, or `fallback` when unset: a level winston does not know is refused, since winston
 * would log nothing at all with it.
 */
export function logLevelFrom(value: string | undefined, fallback: string): string {
  if (value === undefined || value === '') return fallback;
  if (LOG_LEVELS.includes(value)) return value;
  throw new ConfigError(`FLEETPLANE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${value}`);
}

/**
 * JSON lines, on stdout unless `transports` says where. Callers pass correlation ids as fields; tokens and
 * headers are never logged.
 */
export function createLogger(
  level = logLevelFrom(process.env.FLEETPLANE_LOG_LEVEL, 'info'),
  silent = false,
  transports: winston.transport[] = [new winston.transports.Console()],
): Logger {
  return winston.createLogger({
    level,
    silent,
    format: winston.format.combine(winston.format.timestamp(), errorFields(), winston.format.json()),
    defaultMeta: { service: 'fleetplane-hub' },
    transports,
  });
}

/**
 * The warn line of a failure an outage explains (the database or the log's archive away), or null for any
 * other error: a bug, which is logged at error with its stack.
 */
export function outageLine(message: string, error: unknown, fields: Record<string, unknown> = {}): { message: string; fields: Record<string, unknown> } | null {
  const unavailable = databaseUnavailability(error);
  // First: an archive's network failure (its cause) looks like the database's.
  if (error instanceof ArchiveError && error.code === 'archive_destination_failed') {
    return { message: `${message}: the archive is unreachable`, fields: { ...fields, cause: error.message, code: error.code } };
  }
  if (!unavailable) return null;
  const { code } = error as { code?: string };
  return { message: `${message}: the database ${UNAVAILABLE_SAYS[unavailable]}`, fields: { ...fields, cause: (error as Error).message, ...(code ? { code } : {}) } };
}

/**
 * Logs a failure of background work (a worker, a listener, a sweep): at error with its stack, or, when the
 * database or the log's archive is away, at warn in one line: an outage fails everything alike, and the Hub
 * recovers by itself. Work that fails again and again while the outage lasts goes through RepeatedFailures.
 */
export function logFailure(logger: Logger, message: string, error: unknown, fields: Record<string, unknown> = {}): void {
  const line = outageLine(message, error, fields);
  if (line) logger.warn(line.message, line.fields);
  else logger.error(message, { ...fields, error });
}
