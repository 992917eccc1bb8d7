import type { Mode } from '../reconcile/mode.ts';
import type { Labels } from './labels.ts';

/** What node decisions read: the durable node record, as the nodes projection holds it. */
export interface NodeState {
  nodeId: string;
  labels: Labels;
  capabilities: string[];
  dataAddress: string | null;
  controlAddress: string | null;
  agentVersion: string | null;
  bootId: string;
  maintenance: 'active' | 'draining';
  modeOverride: Mode | null;
}
