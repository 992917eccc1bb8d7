import type { LogSegmentArchivedData } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import type { Destination } from '../../packages/hub/src/archive/destination.ts';
import { openDestination, parseDestination } from '../../packages/hub/src/archive/destination-url.ts';
import { archiveDueSegments } from '../../packages/hub/src/archiver/archive-segments.ts';
import type { Tables } from '../../packages/hub/src/database/tables.ts';
import { allProjections } from '../../packages/hub/src/projections/all.ts';
import { historyProblems, verifyHistory } from '../../packages/hub/src/verify-history.ts';
import type { TestHub } from './hub.ts';

/**
 * Archives the log's closed segments, all but the newest written one whatever their age, to `destination`:
 * one run of the Hub's archiver (archiveDueSegments) with the hub's pipeline and clock, its policy's size limit
 * at 0 bytes. A segment closeCurrentSegment ended closes once its last writers are done: the run is tried
 * again until it archives one (10 s at most).
 */
export async function archiveClosedSegments(hub: TestHub, destination: Destination): Promise<LogSegmentArchivedData[]> {
  const { database, pipeline, clock, logger } = hub.context;
  const deps = { db: database.db, pipeline, destination, policy: { hotRetentionMs: 0, hotMaxBytes: 0 }, projections: allProjections, clock, logger };
  for (const deadline = Date.now() + 10_000; ; ) {
    const archived = await archiveDueSegments(deps);
    if (archived.length > 0) return archived;
    if (Date.now() > deadline) throw new Error('no segment closed within 10 s: nothing archived');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * What `fleetplane verify --archive` finds wrong with the log and its archive (verifyHistory), each archived
 * file read where its record says, as the CLI reads it: none expected.
 */
export async function archivedHistoryProblems(db: Kysely<Tables>): Promise<unknown[]> {
  return historyProblems(await verifyHistory(db, allProjections, { archive: { open: (url) => openDestination(parseDestination(url)) } }));
}
