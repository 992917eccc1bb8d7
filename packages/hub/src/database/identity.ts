import { databaseStream, decideIdentity, ok, type DatabaseIdentifiedData, type DatabaseIdentity } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Command, Pipeline } from '../commands/pipeline.ts';
import type { Tables } from './tables.ts';

interface Identities {
  live: DatabaseIdentity;
  recorded: DatabaseIdentity | null;
  /** The version of `database:identity`: a record appends at it, so Hubs finding one change together record it once. */
  version: number;
}

interface Row {
  system_identifier: string;
  timeline: number;
  database_oid: number;
  recorded_system_identifier: string | null;
  recorded_timeline: number | null;
  recorded_database_oid: number | null;
  version: number;
}

/**
 * The timeline WAL is written on: on a primary, the one its current WAL file names. The last checkpoint's
 * (pg_control_checkpoint()) would do too, but a promoted standby's changes only at its first checkpoint, which
 * PostgreSQL spreads over minutes; a standby, where nothing is written, has only that one.
 */
const timeline = sql<number>`CASE WHEN pg_is_in_recovery() THEN (SELECT timeline_id FROM pg_control_checkpoint())
  ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int END`;

/**
 * The live identity (pg_control_system(), the timeline and pg_database, which PUBLIC may read, the Hub's role
 * included), the recorded one and the stream's version, in one statement.
 */
async function identities(db: Kysely<Tables>): Promise<Identities> {
  const { rows } = await sql<Row>`
    SELECT s.system_identifier::text AS system_identifier, ${timeline} AS timeline, d.oid::bigint AS database_oid,
           r.system_identifier AS recorded_system_identifier, r.timeline AS recorded_timeline, r.database_oid AS recorded_database_oid,
           coalesce((SELECT stream_version FROM stream_heads WHERE stream_id = ${databaseStream}), 0) AS version
    FROM pg_control_system() AS s
    JOIN pg_database AS d ON d.datname = current_database()
    LEFT JOIN database_identity AS r ON true`.execute(db);
  const r = rows[0]!;
  return {
    live: { systemIdentifier: r.system_identifier, timeline: r.timeline, databaseOid: r.database_oid },
    recorded:
      r.recorded_system_identifier === null ? null : { systemIdentifier: r.recorded_system_identifier, timeline: r.recorded_timeline!, databaseOid: r.recorded_database_oid! },
    version: r.version,
  };
}

/** Records the live identity where it is not the recorded one, at the stream's version read with it. */
function identifyDatabase(): Command<Identities, DatabaseIdentifiedData | null> {
  return {
    name: 'IdentifyDatabase',
    load: identities,
    decide({ live, recorded, version }) {
      const events = decideIdentity(recorded, live);
      const identified = events[0]?.type === 'DatabaseIdentified' ? events[0].data : null;
      return ok({ events, expectedVersions: { [databaseStream]: version }, result: identified });
    },
  };
}

/**
 * Compares the database's identity with the one recorded, and records a change: what it recorded, or null when
 * nothing changed. A read of one row when nothing did, so every Hub runs it at start and at every lease sweep
 * (level-triggered: a restore or a failover under a running Hub is found by the next one). Hubs finding one
 * change together append at one version: the first records it, the others run again and find it recorded.
 */
export async function checkIdentity(db: Kysely<Tables>, pipeline: Pipeline): Promise<DatabaseIdentifiedData | null> {
  const { live, recorded } = await identities(db);
  if (decideIdentity(recorded, live).length === 0) return null;
  const outcome = await pipeline.run({ principal: 'hub', role: 'system', source: 'worker', correlationId: `identity-${Date.now()}` }, identifyDatabase());
  if (!outcome.ok) throw new Error(`recording the database's identity failed: ${outcome.error.message}`);
  return outcome.value.result;
}

/** What a Hub says of a recorded identity: a change at warn, for the SRE who restored or failed over. */
export function identityLine(identified: DatabaseIdentifiedData): { level: 'info' | 'warn'; message: string; fields: Record<string, unknown> } {
  const fields = { system_identifier: identified.system_identifier, timeline: identified.timeline, database_oid: identified.database_oid };
  if (identified.previous === null) return { level: 'info', message: "database identity recorded", fields };
  return {
    level: 'warn',
    message: "the database is not the one this Hub's log was last written in (a restore, a point-in-time recovery or a failover): nothing is sent to a node until it reports",
    fields: { ...fields, previous: identified.previous },
  };
}
