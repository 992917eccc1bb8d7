import type { ColumnType, Generated, JSONColumnType } from 'kysely';

/** Row types of the tables the Hub reads and writes with Kysely. db/README.md documents them for SQL users. */
export interface Tables {
  events: EventsTable;
  nodes: NodesTable;
}

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface EventsTable {
  position: Generated<number>;
  stream_id: string;
  stream_version: number;
  event_id: string;
  type: string;
  schema_version: number;
  data: JSONColumnType<Record<string, unknown>>;
  metadata: JSONColumnType<Record<string, unknown>>;
  recorded_at: Timestamp;
  tx_id: Generated<string>;
  prev_hash: string | null;
  hash: string;
}

export interface NodesTable {
  node_id: string;
  labels: JSONColumnType<Record<string, string>, string | undefined, string>;
  capabilities: JSONColumnType<string[], string | undefined, string>;
  data_address: string | null;
  control_address: string | null;
  agent_version: string | null;
  boot_id: string;
  maintenance: Generated<'active' | 'draining'>;
  mode_override: 'observe' | 'lifecycle' | 'configuration' | null;
  last_report_seq: number | null;
  last_report_at: Timestamp | null;
  last_seen_at: Timestamp;
  applied_config_version: string | null;
  registered_at: Timestamp;
  updated_at: Timestamp;
}
