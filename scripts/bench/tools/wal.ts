import type pg from 'pg';

/**
 * The WAL the server wrote over a span: bytes from the insert position (exact), full-page images from
 * pg_stat_wal (each session adds its counts there about once a second, so a span of a few seconds reads
 * them roughly). A page's first change after a checkpoint logs the whole page: a load that
 * touches many pages between checkpoints writes many more bytes per change than one that touches few.
 */
export interface WalSnapshot {
  lsn: bigint;
  fullPageImages: number;
}

export interface WalSpan {
  bytes: number;
  fullPageImages: number;
}

export const emptyWal = (): WalSpan => ({ bytes: 0, fullPageImages: 0 });

export async function walSnapshot(pool: pg.Pool): Promise<WalSnapshot> {
  const { rows } = await pool.query<{ lsn: string; wal_fpi: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn, wal_fpi FROM pg_stat_wal');
  const r = rows[0]!;
  return { lsn: lsnValue(r.lsn), fullPageImages: Number(r.wal_fpi) };
}

/** Adds the span from `a` to `b` to `into`. */
export function addWal(into: WalSpan, a: WalSnapshot, b: WalSnapshot): void {
  into.bytes += Number(b.lsn - a.lsn);
  into.fullPageImages += b.fullPageImages - a.fullPageImages;
}

/** `X/Y` (two hex halves) as one number. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** A span per unit of work, as the tables print it: `2.1 kB, 0.4 FPI`. */
export function walPer(span: WalSpan, units: number): string {
  if (units <= 0) return '–';
  return `${((span.bytes / units) / 1000).toFixed(1)} kB, ${(span.fullPageImages / units).toFixed(2)} FPI`;
}
