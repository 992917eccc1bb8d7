import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, type Logger } from '../../../packages/hub/src/logger.ts';

/** A line the Hub logged: when (performance.now()), its level, message and fields. */
export interface LogLine {
  at: number;
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

/**
 * A Hub logger at `level` whose lines the benchmark keeps instead of printing: what its background duties
 * did (they log each segment archived, each prune, each segment added) and every warning and error, to count.
 */
export function capturingLogger(level = 'info'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    objectMode: true,
    write(info: Record<string | symbol, unknown>, _encoding, done) {
      const { level: l, message, timestamp: _t, service: _s, ...fields } = info as Record<string, unknown>;
      lines.push({ at: performance.now(), level: String(l), message: String(message), fields });
      done();
    },
  });
  return { logger: createLogger(level, false, [new winston.transports.Stream({ stream })]), lines };
}
