import type { ObservedStream, PlacementShare } from '@fleetplane/core';

/** One command for this node, as the Hub delivers it (docs/agent-protocol.md). */
export interface AttemptCommand {
  attempt_id: string;
  intent_id: string;
  operation: 'job_start' | 'job_stop' | 'job_restart' | 'config_apply' | 'restore';
  /** The stream of a lifecycle operation; null for configuration (its target is the node's configuration). */
  stream_id: string | null;
  generation: number;
  spec: Record<string, unknown>;
  action_id: string | null;
  config_version: string | null;
  flags: Record<string, boolean>;
  /** A split placement's start or restart: this node's index and count, and its peers (SPEC E3). */
  placement?: PlacementShare | null;
}

/** The agent's own account of one attempt, posted to the Hub (docs/agent-protocol.md, "Results"). */
export interface ExecutionResult {
  outcome: 'succeeded' | 'failed';
  failure_class: 'temporary' | 'permanent' | 'stale_generation' | null;
  code: string | null;
  message: string | null;
  mutation: 'pre_mutation' | 'post_mutation' | null;
}

/**
 * Runs streams on this node. `apply` carries out one attempt and says what happened; `observe` says what
 * runs now, for full reports. Implementations: `process` (real child processes) and `sim` (in memory, with
 * fault injection).
 */
export interface Executor {
  apply(command: AttemptCommand): Promise<ExecutionResult>;
  observe(): Promise<ObservedStream[]>;
  /**
   * Forgets a stream the Hub removed (its record and files, output included), so that reports leave it out:
   * only when it runs nothing and its generation is at most the removal's. Resolves whether it did.
   */
  forget(streamId: string, generation: number): Promise<boolean>;
  /** Called when something changed on its own (a process exited), so the agent reports at once. */
  onChange(listener: () => void): void;
  close(): Promise<void>;
}

export const succeeded: ExecutionResult = { outcome: 'succeeded', failure_class: null, code: null, message: null, mutation: null };

export function failed(failureClass: 'temporary' | 'permanent', code: string, message: string): ExecutionResult {
  return { outcome: 'failed', failure_class: failureClass, code, message, mutation: null };
}
