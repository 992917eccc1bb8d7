import type { Operation } from './intent.ts';
import type { PlacementShare, StreamSpec } from './stream.ts';

export type AttemptStateName = 'queued' | 'dispatched' | 'succeeded' | 'failed' | 'ambiguous' | 'superseded';

/** An attempt as the attempts projection holds it. */
export interface AttemptState {
  attemptId: string;
  intentId: string;
  nodeId: string;
  streamId: string | null;
  configVersion: string | null;
  generation: number;
  operation: Operation;
  actionId: string | null;
  spec: StreamSpec;
  /** A split placement's share, for a start or restart (SPEC E3). */
  placement: PlacementShare | null;
  state: AttemptStateName;
  leaseExpiresAt: Date | null;
}
