import { z } from 'zod';
import { encodeCursor, type LoggedEvent } from '../../event-store/read-all.ts';

/** One event of the log as the history API shows it; `cursor` resumes right after it (`after`, SSE id). */
export const EventView = z.object({
  position: z.number(),
  stream_id: z.string(),
  stream_version: z.number(),
  event_id: z.string(),
  type: z.string(),
  schema_version: z.number(),
  data: z.record(z.string(), z.unknown()),
  metadata: z.object({
    actor: z.string(),
    role: z.string(),
    correlation_id: z.string(),
    causation_id: z.string().nullable(),
    source: z.string(),
  }),
  recorded_at: z.string(),
  cursor: z.string(),
}).meta({ id: 'EventView' });
export type EventView = z.infer<typeof EventView>;

export function eventView(e: LoggedEvent): EventView {
  return {
    position: e.position,
    stream_id: e.streamId,
    stream_version: e.streamVersion,
    event_id: e.eventId,
    type: e.type,
    schema_version: e.schemaVersion,
    data: { ...e.data },
    metadata: { ...e.metadata, causation_id: e.metadata.causation_id ?? null },
    recorded_at: e.recordedAt.toISOString(),
    cursor: encodeCursor(e.cursor),
  };
}
