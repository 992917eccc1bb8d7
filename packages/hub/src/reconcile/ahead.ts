import type { NodeAhead } from '@fleetplane/core';
import type { Selectable } from 'kysely';
import type { NodesTable } from '../database/tables.ts';

/** The node's mark of a configuration version the log does not know, from its row (core reconcile/ahead.ts). */
export const nodeAhead = (row: Pick<Selectable<NodesTable>, 'config_ahead_of' | 'config_ahead_at'> | undefined): NodeAhead | null =>
  row?.config_ahead_of != null && row.config_ahead_at != null ? { generation: row.config_ahead_of, at: row.config_ahead_at } : null;
