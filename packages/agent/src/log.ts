import { types } from 'node:util';
import winston from 'winston';

export type Level = 'info' | 'warn' | 'error';

/** Where the agent's parts write: a level, a message, and fields (node, attempt and correlation ids). */
export type Log = (level: Level, message: string, fields?: Record<string, unknown>) => void;

/**
 * JSON lines on stdout in the Hub's format (`level`, `message`, `service`, `timestamp`, then the fields), so
 * one query reads both sides of an attempt by its attempt or correlation id.
 */
export function jsonLog(level: string = process.env.FLEETPLANE_LOG_LEVEL ?? 'info'): Log {
  const logger = winston.createLogger({
    level,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service: 'fleetplane-agent' },
    transports: [new winston.transports.Console()],
  });
  return (at, message, fields = {}) => logger.log(at, message, fields);
}

/**
 * An error as log fields: its message, code and HTTP status when it has them, and the chain of its causes:
 * a failed `fetch` says only "fetch failed", and why (refused, reset, timed out, a DNS failure) is in its cause.
 */
export function errorFields(error: unknown): Record<string, unknown> {
  if (!isError(error)) return { error: String(error) };
  const { code, status, correlationId } = error as { code?: unknown; status?: unknown; correlationId?: unknown };
  const causes: string[] = [];
  for (let cause: unknown = error.cause; cause !== undefined && causes.length < 5; cause = (cause as { cause?: unknown }).cause) {
    causes.push(describe(cause));
    if (!isError(cause)) break;
  }
  return {
    error: error.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof status === 'number' ? { status } : {}),
    ...(typeof correlationId === 'string' ? { correlation_id: correlationId } : {}),
    ...(causes.length ? { cause: causes.join(': ') } : {}),
  };
}

function describe(cause: unknown): string {
  if (!isError(cause)) return String(cause);
  const { code } = cause as { code?: unknown };
  // AggregateError (a host with several addresses, each refused) carries its reasons in `errors`.
  const { errors } = cause as { errors?: unknown };
  const inner = Array.isArray(errors) ? errors.map(describe).join('; ') : '';
  const text = cause.message || (typeof code === 'string' ? code : cause.name);
  return [text && typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text, inner].filter(Boolean).join(' ');
}

// Errors made by Node's own fetch come from another realm under some runners, where `instanceof Error` fails.
const isError = (value: unknown): value is Error => types.isNativeError(value) || value instanceof Error;
