import { z } from 'zod';
import { HttpError } from '../errors.ts';

export const MAX_PAGE = 100;

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(MAX_PAGE),
  cursor: z.string().min(1).optional(),
});

export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next_cursor: z.string().nullable() });

/** A cursor for lists ordered newest first: the last item's creation time and id. */
export const timeCursor = (at: Date, id: string): string => `${at.toISOString()}|${id}`;

export function parseTimeCursor(cursor: string): { at: Date; id: string } {
  const [at, id] = cursor.split('|');
  const date = new Date(at ?? '');
  if (!id || Number.isNaN(date.getTime())) throw new HttpError(400, 'invalid_request', 'invalid cursor: pass next_cursor from the previous page');
  return { at: date, id };
}
