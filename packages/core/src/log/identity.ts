import type { FleetEvent } from '../events/fleet-event.ts';
import { databaseStream, type DatabaseIdentifiedData, type DatabaseIdentityData } from './events.ts';

/**
 * Which database the log lives in: the server's `system_identifier` (a new cluster, a restore into one, an
 * upgrade by pg_upgrade), its timeline (a point-in-time recovery, a promoted standby) and the database's oid (a
 * restore into a new database of the same server). A copy of the database holds the identity its original
 * recorded, and finds another live.
 */
export interface DatabaseIdentity {
  systemIdentifier: string;
  timeline: number;
  databaseOid: number;
}

const data = (i: DatabaseIdentity): DatabaseIdentityData => ({ system_identifier: i.systemIdentifier, timeline: i.timeline, database_oid: i.databaseOid });

const same = (a: DatabaseIdentity, b: DatabaseIdentity): boolean => a.systemIdentifier === b.systemIdentifier && a.timeline === b.timeline && a.databaseOid === b.databaseOid;

/** Records the live identity when it is not the one recorded: nothing when it is. */
export function decideIdentity(recorded: DatabaseIdentity | null, live: DatabaseIdentity): FleetEvent[] {
  if (recorded !== null && same(recorded, live)) return [];
  const identified: DatabaseIdentifiedData = { ...data(live), previous: recorded === null ? null : data(recorded) };
  return [{ streamId: databaseStream, type: 'DatabaseIdentified', data: identified }];
}
