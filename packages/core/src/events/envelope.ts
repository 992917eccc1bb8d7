/** Who caused an event, and why: carried on every event so an auditor can follow any decision back. */
export interface EventMetadata {
  actor: string;
  role: Role;
  correlation_id: string;
  causation_id: string | null;
  source: EventSource;
}

export type Role = 'viewer' | 'operator' | 'admin' | 'agent' | 'system';
export type EventSource = 'api' | 'agent' | 'worker' | 'cli';

/** An event decided by a command, before the store gives it a place in the log. */
export interface NewEvent<T extends string = string, D = object> {
  streamId: string;
  type: T;
  data: D;
  schemaVersion?: number;
  eventId?: string;
}

/** An event as stored: its place in the log, its stream and its chain link. */
export interface RecordedEvent<T extends string = string, D = object> {
  position: number;
  streamId: string;
  streamVersion: number;
  eventId: string;
  type: T;
  schemaVersion: number;
  data: D;
  metadata: EventMetadata;
  recordedAt: Date;
}
