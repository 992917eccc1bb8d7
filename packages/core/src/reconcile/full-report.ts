import { z } from 'zod';
import { ObservedStream } from './observed.ts';

/** A full report, as an agent sends it: what the node runs and its configuration, at a sequence number of its boot. */
export const Report = z
  .object({
    node_id: z.string().min(1).max(200),
    boot_id: z.string().min(1).max(200),
    report_seq: z.number().int().min(0),
    full: z.literal(true).default(true),
    streams: z.array(ObservedStream).max(10_000),
    configuration: z
      .object({
        applied_version: z.string().max(200).nullable().default(null),
        recovery_points: z.array(z.object({ ref: z.string().max(200), config_version: z.string().max(200) }).strict()).max(1000).default([]),
      })
      .strict()
      .default({ applied_version: null, recovery_points: [] }),
  })
  .strict()
  .refine((r) => new Set(r.streams.map((s) => s.stream_id)).size === r.streams.length, { message: 'each stream is reported once' });
export type Report = z.infer<typeof Report>;
