import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { ConfigVersionsTable } from '../../database/tables.ts';

export const ConfigVersionView = z.object({
  config_version: z.string(),
  digest: z.string(),
  format: z.enum(['yaml', 'json', 'toml', 'text']),
  parent: z.string().nullable(),
  content: z.string(),
  created_by: z.string(),
  correlation_id: z.string(),
  created_at: z.string(),
}).meta({ id: 'ConfigVersionView' });

export type ConfigVersionView = z.infer<typeof ConfigVersionView>;

export const configVersionView = (r: Selectable<ConfigVersionsTable>): z.infer<typeof ConfigVersionView> => ({
  config_version: r.config_version,
  digest: r.digest,
  format: r.format,
  parent: r.parent,
  content: r.content,
  created_by: r.created_by,
  correlation_id: r.correlation_id,
  created_at: r.created_at.toISOString(),
});
