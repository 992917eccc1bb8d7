import { projection, type ProjectionQuery } from './projection.ts';

/** The `nodes` table: one row per registered node; `retired_nodes`: the ids retired for good (db/README.md). */
export const nodesProjection = projection({
  name: 'nodes',
  tables: { nodes: ['node_id'], retired_nodes: ['node_id'] },
  handles: ['NodeRegistered', 'NodeLabelsReplaced', 'NodeDrained', 'NodeUndrained', 'NodeModeSet', 'NodeRetired', 'IntentOpened'],
  evolve(event, db): ProjectionQuery[] {
    switch (event.type) {
      case 'NodeRegistered': {
        const d = event.data;
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
        const d = event.data;
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
        return [db.updateTable('nodes').set({ maintenance, updated_at: event.recordedAt }).where('node_id', '=', event.data.node_id)];
      }
      case 'NodeModeSet': {
        const d = event.data;
        return [db.updateTable('nodes').set({ mode_override: d.mode, updated_at: event.recordedAt }).where('node_id', '=', d.node_id)];
      }
      case 'NodeRetired': {
        const d = event.data;
        return [
          db.deleteFrom('nodes').where('node_id', '=', d.node_id),
          db.insertInto('retired_nodes').values({
            node_id: d.node_id,
            forced: d.forced,
            retired_by: event.metadata.actor,
            correlation_id: event.metadata.correlation_id,
            retired_at: event.recordedAt,
          }),
        ];
      }
      case 'IntentOpened': {
        // A configuration intent is the node's new desired configuration, at the node's next generation.
        const d = event.data;
        if (d.kind !== 'configuration') return [];
        return [
          db.updateTable('nodes').set({ desired_config_version: d.config_version, config_generation: d.generation }).where('node_id', '=', d.node_id),
        ];
      }
      default:
        return [];
    }
  },
});
