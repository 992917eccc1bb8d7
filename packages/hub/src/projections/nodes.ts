import type { IntentOpenedData, NodeLabelsReplacedData, NodeRegisteredData, RecordedEvent } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import type { Projection, ProjectionQuery } from './projection.ts';

/** The `nodes` table: one row per registered node (db/README.md). */
export const nodesProjection: Projection = {
  name: 'nodes',
  tables: { nodes: ['node_id'] },
  handles: ['NodeRegistered', 'NodeLabelsReplaced', 'NodeDrained', 'NodeUndrained', 'NodeModeSet', 'IntentOpened'],
  evolve(event: RecordedEvent, db: Kysely<Tables>): ProjectionQuery[] {
    switch (event.type) {
      case 'NodeRegistered': {
        const d = event.data as NodeRegisteredData;
        const registration = {
          capabilities: JSON.stringify(d.capabilities),
          data_address: d.data_address,
          control_address: d.control_address,
          agent_version: d.agent_version,
          boot_id: d.boot_id,
          last_seen_at: event.recordedAt,
          updated_at: event.recordedAt,
        };
        return [
          db
            .insertInto('nodes')
            .values({ node_id: d.node_id, registered_at: event.recordedAt, ...registration })
            .onConflict((oc) => oc.column('node_id').doUpdateSet(registration)),
        ];
      }
      case 'NodeLabelsReplaced': {
        const d = event.data as NodeLabelsReplacedData;
        return [
          db
            .updateTable('nodes')
            .set({ labels: JSON.stringify(d.after), updated_at: event.recordedAt })
            .where('node_id', '=', d.node_id),
        ];
      }
      case 'NodeDrained':
      case 'NodeUndrained': {
        const maintenance = event.type === 'NodeDrained' ? 'draining' : 'active';
        return [db.updateTable('nodes').set({ maintenance, updated_at: event.recordedAt }).where('node_id', '=', nodeIdOf(event))];
      }
      case 'NodeModeSet': {
        const d = event.data as { node_id: string; mode: 'observe' | 'lifecycle' | 'configuration' | null };
        return [db.updateTable('nodes').set({ mode_override: d.mode, updated_at: event.recordedAt }).where('node_id', '=', d.node_id)];
      }
      case 'IntentOpened': {
        // A configuration intent is the node's new desired configuration, at the node's next generation.
        const d = event.data as unknown as IntentOpenedData;
        if (d.kind !== 'configuration') return [];
        return [
          db.updateTable('nodes').set({ desired_config_version: d.config_version, config_generation: d.generation }).where('node_id', '=', d.node_id),
        ];
      }
      default:
        return [];
    }
  },
};

const nodeIdOf = (event: RecordedEvent): string => (event.data as { node_id: string }).node_id;
