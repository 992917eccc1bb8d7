import { z } from 'zod';

export const MAX_PAGE = 100;

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(MAX_PAGE),
  cursor: z.string().min(1).optional(),
});

export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next_cursor: z.string().nullable() });
