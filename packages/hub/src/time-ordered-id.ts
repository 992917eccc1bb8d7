import { randomFillSync } from 'node:crypto';

/** Random bytes taken 16 at a time, refilled in one call: a call per id cost more than the id. */
const random = Buffer.alloc(16 * 256);
let taken = random.length;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * A UUID version 7 (RFC 9562): the time in milliseconds, then 74 random bits. Events' ids and correlation
 * ids are indexed in the event log; ids that grow with time are inserted at the right edge of those indexes
 * instead of at random pages of them, which costs PostgreSQL less per report
 * (docs/decisions.md, "Report ingestion at fleet scale"). The time is the machine's: an id's order is all it
 * is for, never a time a decision reads.
 */
export function timeOrderedUuid(ms: number = Date.now()): string {
  if (taken === random.length) {
    randomFillSync(random);
    taken = 0;
  }
  const b = random.subarray(taken, taken + 16);
  taken += 16;
  b.writeUIntBE(ms, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  let id = '';
  for (let i = 0; i < 16; i++) id += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + HEX[b[i]!];
  return id;
}
