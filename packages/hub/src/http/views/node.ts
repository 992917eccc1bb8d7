import { effectiveMode, type Mode } from '@fleetplane/core';
import { sql, type Selectable } from 'kysely';
import { z } from 'zod';
import type { HubConfig } from '../../config.ts';
import type { NodesTable, RetiredNodesTable } from '../../database/tables.ts';

export const Liveness = z.enum(['online', 'stale', 'offline']);

export const NodeView = z.object({
  node_id: z.string(),
  labels: z.record(z.string(), z.string()),
  capabilities: z.array(z.string()),
  data_address: z.string().nullable(),
  control_address: z.string().nullable(),
  agent_version: z.string().nullable(),
  maintenance: z.enum(['active', 'draining']),
  liveness: Liveness,
  mode: z.enum(['observe', 'lifecycle', 'configuration']),
  mode_override: z.enum(['observe', 'lifecycle', 'configuration']).nullable(),
  boot_id: z.string(),
  last_report_seq: z.number().nullable(),
  last_report_at: z.string().nullable(),
  last_seen_at: z.string(),
  applied_config_version: z.string().nullable(),
  desired_config_version: z.string().nullable(),
  registered_at: z.string(),
}).meta({ id: 'NodeView' });
export type NodeView = z.infer<typeof NodeView>;

/** How many nodes a filter selects: what a console shows beside the one page of them it loads. */
export const NodeCounts = z.object({
  total: z.number().int(),
  liveness: z.object({ online: z.number().int(), stale: z.number().int(), offline: z.number().int() }),
  maintenance: z.object({ active: z.number().int(), draining: z.number().int() }),
}).meta({ id: 'NodeCounts' });

/** Liveness follows the age of the node's last contact (registration or report) at read time. */
export function liveness(lastSeen: Date, now: Date, config: HubConfig): z.infer<typeof Liveness> {
  const age = now.getTime() - lastSeen.getTime();
  const { stale_after_ms, offline_after_ms } = config.file.reconciliation;
  return age >= offline_after_ms ? 'offline' : age >= stale_after_ms ? 'stale' : 'online';
}

/** liveness() as SQL over the nodes table, for filtering and counting nodes there. */
export function livenessSql(now: Date, config: HubConfig) {
  const { stale_after_ms, offline_after_ms } = config.file.reconciliation;
  const ago = (ms: number) => new Date(now.getTime() - ms);
  return sql<z.infer<typeof Liveness>>`CASE WHEN last_seen_at <= ${ago(offline_after_ms)} THEN 'offline' WHEN last_seen_at <= ${ago(stale_after_ms)} THEN 'stale' ELSE 'online' END`;
}

/** `mode` is the node's effective mode: its override, else the global mode (the operator's, else the configured one). */
export function nodeView(row: Selectable<NodesTable>, now: Date, config: HubConfig, globalMode: Mode): NodeView {
  return {
    node_id: row.node_id,
    labels: row.labels,
    capabilities: row.capabilities,
    data_address: row.data_address,
    control_address: row.control_address,
    agent_version: row.agent_version,
    maintenance: row.maintenance,
    liveness: liveness(row.last_seen_at, now, config),
    mode: effectiveMode(globalMode, row.mode_override),
    mode_override: row.mode_override,
    boot_id: row.boot_id,
    last_report_seq: row.last_report_seq,
    last_report_at: row.last_report_at?.toISOString() ?? null,
    last_seen_at: row.last_seen_at.toISOString(),
    applied_config_version: row.applied_config_version,
    desired_config_version: row.desired_config_version,
    registered_at: row.registered_at.toISOString(),
  };
}

/** A retired node (DELETE /nodes/{id}): who retired it and when, and what a forced retirement ended. */
export const RetiredNodeView = z.object({
  node_id: z.string(),
  retired_at: z.string(),
  retired_by: z.string(),
  forced: z.boolean(),
  correlation_id: z.string(),
  /** The live intents it superseded (queued attempts withdrawn). */
  superseded_intents: z.array(z.string()),
  /** The running rollouts it was removed from, as a cancelled target. */
  rollouts: z.array(z.string()),
});

export function retiredNodeView(row: Selectable<RetiredNodesTable>) {
  return { node_id: row.node_id, retired_at: row.retired_at.toISOString(), retired_by: row.retired_by, forced: row.forced, correlation_id: row.correlation_id };
}
