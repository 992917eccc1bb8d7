import { z } from 'zod';
import { Labels } from './labels.ts';

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

export const NodeEvents = {
  NodeRegistered: NodeRegisteredData,
  NodeLabelsReplaced: NodeLabelsReplacedData,
} as const;
