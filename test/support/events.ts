import { randomUUID } from 'node:crypto';
import type { EventToAppend } from '../../packages/hub/src/event-store/append.ts';

/** The time every test event is recorded at. */
export const at = new Date('2026-11-30T10:00:00.000Z');

/** A new event with a fresh id, as an operator's command would append it. */
export const event = (type = 'Happened', data: Record<string, unknown> = {}): EventToAppend & { eventId: string } => ({
  eventId: randomUUID(),
  type,
  schemaVersion: 1,
  data,
  metadata: { actor: 'alice', role: 'operator', correlation_id: 'c-1', causation_id: null, source: 'api' },
  recordedAt: at,
});
