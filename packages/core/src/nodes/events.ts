import { z } from 'zod';
import { Labels } from './labels.ts';
import type { Mode } from '../reconcile/mode.ts';

export const NodeRegisteredData = z.object({
  node_id: z.string(),
  boot_id: z.string(),
  agent_version: z.string().nullable(),
  capabilities: z.array(z.string()),
  data_address: z.string().nullable(),
  control_address: z.string().nullable(),
});
export type NodeRegisteredData = z.infer<typeof NodeRegisteredData>;

export const NodeLabelsReplacedData = z.object({
  node_id: z.string(),
  before: Labels,
  after: Labels,
});
export type NodeLabelsReplacedData = z.infer<typeof NodeLabelsReplacedData>;

/** NodeDrained and NodeUndrained: the node's availability changed, not what it should run (SPEC D1-D3). */
export interface NodeMaintenanceData {
  node_id: string;
}

/** A per-node reconciliation mode (null: follow the global one) and the one it replaced (B3). */
export interface NodeModeSetData {
  node_id: string;
  mode: Mode | null;
  previous: Mode | null;
}

/** The global reconciliation mode and the one it replaced (B3). */
export interface ReconciliationModeSetData {
  mode: Mode;
  previous: Mode;
}

/**
 * A node retired by an operator (issue 22): it leaves the fleet for good and its agent credential is refused
 * from then on. `forced` retirements name what they ended: the node's live intents (each superseded by its
 * own event, queued attempts withdrawn) and the running rollouts it was removed from.
 */
export interface NodeRetiredData {
  node_id: string;
  forced: boolean;
  superseded_intents: string[];
  rollouts: string[];
}
