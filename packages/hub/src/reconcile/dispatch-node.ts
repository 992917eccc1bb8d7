import { effectiveMode, type DispatchNode, type Mode } from '@fleetplane/core';
import type { Selectable } from 'kysely';
import type { NodesTable } from '../database/tables.ts';
import { nodeAhead } from './ahead.ts';
import { nodeUnheard, restoredAtColumn } from './unheard.ts';

/** What a pass, a lease and a rollout's batch read of a node to decide what may be sent to it. */
export const dispatchNodeColumns = () => ['maintenance', 'mode_override', 'config_ahead_of', 'config_ahead_at', 'last_report_at', restoredAtColumn()] as const;

export type DispatchNodeRow = Pick<Selectable<NodesTable>, 'maintenance' | 'mode_override' | 'config_ahead_of' | 'config_ahead_at' | 'last_report_at'> & { restored_at: Date | null };

/** The node as core's dispatch and lease decisions take it, from its row (none: not registered) and the global mode. */
export function dispatchNode(nodeId: string, row: DispatchNodeRow | undefined, globalMode: Mode, hold: DispatchNode['hold']): DispatchNode {
  return {
    nodeId,
    registered: row !== undefined,
    maintenance: row?.maintenance ?? 'active',
    mode: effectiveMode(globalMode, row?.mode_override ?? null),
    hold,
    configAhead: nodeAhead(row),
    unheardSince: nodeUnheard(row),
  };
}
