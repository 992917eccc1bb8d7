import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { ConfigVersionsTable } from '../../database/tables.ts';

/** A version as lists show it: everything but its content, which may be a MiB; `size_bytes` says how large. */
export const ConfigVersionSummary = z.object({
  config_version: z.string(),
  digest: z.string(),
  format: z.enum(['yaml', 'json', 'toml', 'text']),
  parent: z.string().nullable(),
  size_bytes: z.number().int(),
  created_by: z.string(),
  correlation_id: z.string(),
  created_at: z.string(),
}).meta({ id: 'ConfigVersionSummary' });

export const ConfigVersionView = ConfigVersionSummary.extend({ content: z.string() }).meta({ id: 'ConfigVersionView' });

export type ConfigVersionSummary = z.infer<typeof ConfigVersionSummary>;
export type ConfigVersionView = z.infer<typeof ConfigVersionView>;

export type ConfigVersionSummaryRow = Omit<Selectable<ConfigVersionsTable>, 'content'> & { size_bytes: number };

export const configVersionSummary = (r: ConfigVersionSummaryRow): ConfigVersionSummary => ({
  config_version: r.config_version,
  digest: r.digest,
  format: r.format,
  parent: r.parent,
  size_bytes: r.size_bytes,
  created_by: r.created_by,
  correlation_id: r.correlation_id,
  created_at: r.created_at.toISOString(),
});

export const configVersionView = (r: Selectable<ConfigVersionsTable>): ConfigVersionView => ({
  ...configVersionSummary({ ...r, size_bytes: Buffer.byteLength(r.content, 'utf8') }),
  content: r.content,
});
