import type { ByteReader, ByteWriter } from './bytes.ts';
import { corrupt } from './segment-error.ts';

const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEAD_LIMIT = 2 ** 48;

/** PostgreSQL's text form of a uuid: lower-case hex, dashes at 8, 13, 18 and 23. Only this form is stored as 16 bytes. */
export const isCanonicalUuid = (v: string): boolean => v.length === 36 && CANONICAL.test(v);

/**
 * A UUID in two columns: its first 6 bytes as a 48-bit integer written against the event's time in
 * milliseconds (a UUID version 7 begins with its creation time, so this is a small number), and its other
 * 10 bytes as they are.
 */
export function writeUuid(uuid: string, timeMs: number, time: ByteWriter, rest: ByteWriter): void {
  const hex = uuid.slice(0, 8) + uuid.slice(9, 13) + uuid.slice(14, 18) + uuid.slice(19, 23) + uuid.slice(24);
  time.delta(parseInt(hex.slice(0, 12), 16), timeMs);
  rest.raw(Buffer.from(hex.slice(12), 'hex'));
}

export function readUuid(timeMs: number, time: ByteReader, rest: ByteReader): string {
  const head = time.delta(timeMs);
  if (head < 0 || head >= HEAD_LIMIT) throw corrupt(`section ${time.section} holds a UUID head beyond 48 bits`);
  const h = head.toString(16).padStart(12, '0');
  const tail = rest.raw(10);
  const r = Buffer.from(tail.buffer, tail.byteOffset, 10).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8)}-${r.slice(0, 4)}-${r.slice(4, 8)}-${r.slice(8)}`;
}
