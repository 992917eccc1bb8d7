import type { ArchivedFile, LogSegmentArchivedData } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import { readVerified, type Destination } from '../archive/destination.ts';
import { openDestination, parseDestination } from '../archive/destination-url.ts';
import { deriveCheckpoint } from '../checkpoints/derive.ts';
import type { Clock } from '../clock.ts';
import type { Actor, Pipeline } from '../commands/pipeline.ts';
import type { Tables } from '../database/tables.ts';
import type { Logger } from '../logger.ts';
import type { Projection } from '../projections/projection.ts';
import { timeOrderedUuid } from '../time-ordered-id.ts';
import { refuseAnotherHistory } from './another-history.ts';
import { detachedArchivedSegments, dropSegment } from './drop.ts';
import { exportSegment } from './export-segment.ts';
import { planSegments, type ArchivePolicy, type PlannedSegment } from './plan.ts';
import { archiveRecord, recordedSegment, recordSegmentArchived } from './record.ts';

export interface ArchiveDeps {
  db: Kysely<Tables>;
  pipeline: Pipeline;
  destination: Destination;
  policy: ArchivePolicy;
  projections: readonly Projection[];
  clock: Clock;
  logger: Logger;
}

/** The steps of archiving a segment, in order; each is done again, or found done, by the next run. */
export type ArchiveStep = 'segment_stored' | 'checkpoint_stored' | 'recorded' | 'detached' | 'dropped';

export interface ArchiveRunOptions {
  /** Ends the run before its next step (a Hub stopping): what is left is done by the next run. */
  signal?: AbortSignal;
  /** Called after each step of each segment. A test stops the run there by throwing, as a crash would. */
  afterStep?: (step: ArchiveStep, segment: string) => Promise<void> | void;
}

const worker = (): Actor => ({ principal: 'hub', role: 'system', source: 'worker', correlationId: timeOrderedUuid() });

/** A position as archived objects' names write it: 19 digits, as segments' partitions are named. */
const padded = (position: number) => String(position).padStart(19, '0');

/**
 * One run of the archiver: drops what an interrupted run archived and left in the database, then archives
 * the segments due (planSegments), oldest first, each in these steps:
 * 1. its events, read under a SHARE lock, go to a segment file `segments/<first>-<last>.fseg`, written and
 *    read back verified (size and SHA-256);
 * 2. the projections' checkpoint as of its last position goes to `checkpoints/<last>.fckp`, likewise;
 * 3. LogSegmentArchived is appended at the version of the segments archived before, through the command
 *    pipeline, with the chain heads (archived_heads) and the checkpoint (projection_checkpoints) in its
 *    transaction;
 * 4. its partition is detached and dropped.
 * A run stopped before 3 leaves files that the next run writes again under the same names; one stopped after
 * 3 leaves a partition that the next run drops, once it has read the recorded files back verified. So every
 * segment is recorded once, and leaves the database only once its files are known good.
 */
export async function archiveDueSegments(deps: ArchiveDeps, options: ArchiveRunOptions = {}): Promise<LogSegmentArchivedData[]> {
  const archived: LogSegmentArchivedData[] = [];
  const { lastPosition } = await archiveRecord(deps.db);
  if (lastPosition !== null) for (const name of await detachedArchivedSegments(deps.db, lastPosition)) await dropSegment(deps.db, name);
  for (let previous: string | undefined; ; ) {
    options.signal?.throwIfAborted();
    const segment = (await planSegments(deps.db, deps.policy, deps.clock.now())).find((s) => s.state === 'archiving');
    if (segment === undefined) return archived;
    if (segment.name === previous) throw new Error(`segment ${segment.name} is still in the log after it was archived`);
    previous = segment.name;
    if (segment.recorded) await dropRecorded(deps, segment, options);
    else archived.push(await archiveSegment(deps, segment, options));
  }
}

async function archiveSegment(deps: ArchiveDeps, segment: PlannedSegment, options: ArchiveRunOptions): Promise<LogSegmentArchivedData> {
  const step = async (done: ArchiveStep) => {
    await options.afterStep?.(done, segment.name);
    options.signal?.throwIfAborted();
  };
  const record = await archiveRecord(deps.db);
  // Positions between the archive's end and this segment were never stored (the sequence outran the
  // segments once): the file covers them, so the archive's ranges meet.
  const first = record.lastPosition === null ? segment.from : record.lastPosition + 1;
  if (first > segment.from) throw new Error(`segment ${segment.name} begins at ${segment.from}, inside the archive, which ends at ${record.lastPosition}`);
  const positions = { first, last: segment.to - 1 };
  await warnOfAnotherDestination(deps, record.segments);

  const exported = await exportSegment(deps.db, segment, positions, { signal: options.signal });
  const segmentName = `segments/${padded(positions.first)}-${padded(positions.last)}.fseg`;
  await refuseAnotherHistory(deps.destination, segmentName, exported);
  const segmentFile = await store(deps.destination, segmentName, exported.file);
  await step('segment_stored');
  const checkpoint = await deriveCheckpoint(deps.db, deps.projections, positions.last);
  const checkpointFile = await store(deps.destination, `checkpoints/${padded(positions.last)}.fckp`, checkpoint);
  await step('checkpoint_stored');

  const { tx_ids: txIds } = exported.file.summary;
  const data: LogSegmentArchivedData = {
    first_position: positions.first,
    last_position: positions.last,
    first_tx_id: txIds?.first ?? null,
    last_tx_id: txIds?.last ?? null,
    events: exported.file.summary.events,
    destination: deps.destination.url,
    segment: segmentFile,
    checkpoint: checkpointFile,
    heads: exported.heads.map((h) => [h.streamId, h.version, h.hash]),
  };
  const recorded = await deps.pipeline.run(worker(), recordSegmentArchived(data, exported.heads, checkpoint));
  if (!recorded.ok) throw new Error(`recording segment ${segment.name} as archived was refused: ${recorded.error.code}: ${recorded.error.message}`);
  await step('recorded');
  await dropSegment(deps.db, segment.name, () => step('detached'));
  await step('dropped');
  deps.logger.info('log segment archived', {
    segment: segment.name,
    first_position: data.first_position,
    last_position: data.last_position,
    events: data.events,
    file: data.segment.name,
    bytes: data.segment.bytes,
    destination: data.destination,
  });
  return data;
}

/** A segment recorded as archived by a run that stopped before dropping it: dropped once its files read back verified. */
async function dropRecorded(deps: ArchiveDeps, segment: PlannedSegment, options: ArchiveRunOptions): Promise<void> {
  const data = await recordedSegment(deps.db, { lastPosition: segment.to - 1 });
  if (data === undefined) throw new Error(`segment ${segment.name} lies inside the archive, but no LogSegmentArchived ends at its last position ${segment.to - 1}: it is kept`);
  const destination = data.destination === deps.destination.url ? deps.destination : openDestination(parseDestination(data.destination));
  await readVerified(destination, data.segment.name, { size: data.segment.bytes, sha256: data.segment.sha256 });
  await readVerified(destination, data.checkpoint.name, { size: data.checkpoint.bytes, sha256: data.checkpoint.sha256 });
  await dropSegment(deps.db, segment.name, () => options.afterStep?.('detached', segment.name));
  await options.afterStep?.('dropped', segment.name);
  deps.logger.info('archived log segment dropped', { segment: segment.name, file: data.segment.name, destination: data.destination });
}

/** Puts an object and reads it back verified: what the log records of it. */
async function store(destination: Destination, name: string, file: { bytes: Buffer; sha256: string }): Promise<ArchivedFile> {
  await destination.put(name, file.bytes);
  await readVerified(destination, name, { size: file.bytes.length, sha256: file.sha256 });
  return { name, bytes: file.bytes.length, sha256: file.sha256 };
}

/** Hubs sharing a database must share the archive: one archiving elsewhere than the last segment went splits it. */
async function warnOfAnotherDestination(deps: ArchiveDeps, segments: number): Promise<void> {
  if (segments === 0) return;
  const last = await recordedSegment(deps.db, { version: segments });
  if (last !== undefined && last.destination !== deps.destination.url) {
    deps.logger.warn('this Hub archives the log to another destination than the last archived segment went to: Hubs sharing a database must share log.archive', {
      destination: deps.destination.url,
      last_destination: last.destination,
    });
  }
}
