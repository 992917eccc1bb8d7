import { z } from 'zod';
import { sql } from 'kysely';
import { HttpError } from '../errors.ts';

export const MAX_PAGE = 100;

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(MAX_PAGE),
  cursor: z.string().min(1).optional(),
});

export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next_cursor: z.string().nullable() });

/** A cursor for lists ordered newest first: the last item's creation time and id. */
const timeCursor = (at: Date, id: string): string => `${at.toISOString()}|${id}`;

/** A creation time as `timeCursor` writes it: a time JavaScript and PostgreSQL both hold (years 0000-9999). */
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function parseTimeCursor(cursor: string): { at: Date; id: string } {
  const [at, id] = cursor.split('|');
  const date = new Date(at ?? '');
  if (!id || !CURSOR_TIME.test(at ?? '') || Number.isNaN(date.getTime())) {
    throw new HttpError(400, 'invalid_request', 'invalid cursor: pass next_cursor from the previous page');
  }
  return { at: date, id };
}

/** For lists ordered by (created_at, id) descending: the rows after the cursor (all rows without one). */
export function olderThan(cursor: string | undefined, idColumn: string) {
  if (!cursor) return sql<boolean>`true`;
  const { at, id } = parseTimeCursor(cursor);
  return sql<boolean>`(created_at, ${sql.ref(idColumn)}) < (${at}, ${id})`;
}

/** One page of a newest-first list fetched with limit + 1 rows: its items and the cursor of the next page. */
export function newestFirstPage<T extends { created_at: Date }>(rows: T[], limit: number, idOf: (row: T) => string): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, next_cursor: rows.length > limit && last ? timeCursor(last.created_at, idOf(last)) : null };
}
