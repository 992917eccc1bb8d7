import { currentSchemaVersion, reportDigest, reportedContent, upcast, type NodeReportedData } from '@fleetplane/core';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { fixture, type StoredEvent } from '../../../../test/support/fixtures.ts';
import { appendToStream } from '../event-store/append.ts';
import { toRecordedEvent, EVENT_COLUMNS } from '../event-store/recorded.ts';
import { allProjections } from './all.ts';
import { applyProjections } from './projection.ts';

// Event versioning: logs written by older Hubs are kept as fixtures and must keep replaying. Each
// fixture is appended as it was stored (old schema versions included) and projected through the upcasters;
// the database then verifies on drop (a rebuild from the log equals the live tables).

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());


/** Appends stored events exactly as they were written, projecting each one as the Hub does. */
async function replayStored(events: StoredEvent[]): Promise<void> {
  await t.db.transaction().execute(async (trx) => {
    for (const e of events) {
      const appended = await appendToStream(trx, e.stream_id, 'any', [
        { eventId: e.event_id, type: e.type, schemaVersion: e.schema_version, data: e.data, metadata: e.metadata as never, recordedAt: new Date(e.recorded_at) },
      ]);
      if (!appended.ok) throw new Error(`append failed: ${appended.error.type}`);
      const row = await trx.selectFrom('events').select(EVENT_COLUMNS).where('event_id', '=', e.event_id).executeTakeFirstOrThrow();
      await applyProjections(allProjections, trx, [toRecordedEvent(row)]);
    }
  });
}

test('J3 version-1 events (before configuration intents) upcast and replay into the current projections', async () => {
  const events = fixture('v1-lifecycle.ndjson');
  expect(events.filter((e) => e.type === 'IntentOpened').map((e) => e.schema_version)).toEqual([1]);
  expect(currentSchemaVersion('IntentOpened')).toBe(2);
  await replayStored(events);
  const intent = (await sql<any>`SELECT kind, stream_id, state, config_version, rollout_id, recovery_ref FROM intents`.execute(t.db)).rows;
  expect(intent).toEqual([{ kind: 'lifecycle', stream_id: 'ingest', state: 'converged', config_version: null, rollout_id: null, recovery_ref: null }]);
  const attempt = (await sql<any>`SELECT operation, state, config_version FROM attempts`.execute(t.db)).rows;
  expect(attempt).toEqual([{ operation: 'job_start', state: 'succeeded', config_version: null }]);
  const node = (await sql<any>`SELECT labels, last_report_seq FROM nodes`.execute(t.db)).rows;
  expect(node).toEqual([{ labels: { env: 'prod' }, last_report_seq: 1 }]);
  // The log keeps what was written; only readers see the current shape.
  const stored = (await sql<any>`SELECT schema_version, data FROM events WHERE type = 'IntentOpened'`.execute(t.db)).rows[0];
  expect(stored.schema_version).toBe(1);
  expect('config_version' in stored.data).toBe(false);
});

test('J3 version-1 reports (changed, repeated, a new boot) upcast and replay into what the Hub that wrote them projected', async () => {
  const events = fixture('v1-reports.ndjson');
  expect(currentSchemaVersion('NodeReported')).toBe(2);
  // Each changed report's digest, recomputed from its upcast content, is the one it was stored with.
  for (const e of events.filter((e) => e.type === 'NodeReported' && e.data.streams !== null)) {
    expect(reportDigest(reportedContent(upcast(e.type, e.schema_version, e.data).data as unknown as NodeReportedData)!)).toBe(e.data.digest);
  }
  await replayStored(events);
  // As the Hub of version-1 reports left its tables (test/fixtures/events/v1-reports.ndjson, written by it).
  const nodes = (await sql<any>`SELECT node_id, boot_id, report_boot_id, last_report_seq::int, report_digest, applied_config_version, recovery_points,
      last_report_at FROM nodes WHERE node_id IN ('edge-1', 'edge-2') ORDER BY node_id`.execute(t.db)).rows;
  expect(nodes).toEqual([
    {
      node_id: 'edge-1',
      boot_id: 'edge-1-boot-2',
      report_boot_id: 'edge-1-boot-2',
      last_report_seq: 3,
      report_digest: 'cb97fcc5cf9f9e5a4f0973278b64fae70ef00a8ad859bd08bd672f6ec6ef9bdc',
      applied_config_version: 'cv_2026_06_01',
      recovery_points: [{ ref: 'rp-1', config_version: 'cv_2026_05_30' }],
      last_report_at: new Date('2026-06-01T10:02:10.000Z'),
    },
    {
      node_id: 'edge-2',
      boot_id: 'edge-2-boot-1',
      report_boot_id: 'edge-2-boot-1',
      last_report_seq: 3,
      report_digest: '0aafd4049d589b5f07af5b2240867c5a03f195fd2c6354a7ad2bae491da2f854',
      applied_config_version: null,
      recovery_points: [],
      last_report_at: new Date('2026-06-01T10:01:30.000Z'),
    },
  ]);
  expect((await sql<any>`SELECT * FROM observed_streams WHERE node_id IN ('edge-1', 'edge-2')`.execute(t.db)).rows).toEqual([
    { node_id: 'edge-2', stream_id: 'metrics', generation: 3, state: 'failed', last_action_id: 'act-7', error: 'exit status 2', health: null, reported_at: new Date('2026-06-01T10:01:30.000Z') },
  ]);
});

test('a version-1 report upcasts to what version 2 keeps, its boot named', () => {
  const changed = {
    node_id: 'n', boot_id: 'b', report_seq: 4, digest: 'd', applied_config_version: 'cv', recovery_points: [{ ref: 'r', config_version: 'cv0' }],
    streams: [{ stream_id: 's', generation: 2, state: 'failed', last_action_id: null, error: 'boom' }, { stream_id: 't', generation: 1, state: 'running', last_action_id: 'a', error: null }],
  };
  expect(upcast('NodeReported', 1, changed)).toEqual({
    schemaVersion: 2,
    data: { seq: 4, boot_id: 'b', streams: [['s', 2, 'failed', null, 'boom'], ['t', 1, 'running', 'a']], config: 'cv', points: [['r', 'cv0']] },
  });
  expect(upcast('NodeReported', 1, { ...changed, streams: null, applied_config_version: null, recovery_points: null })).toEqual({ schemaVersion: 2, data: { seq: 4, boot_id: 'b' } });
  expect(upcast('NodeReported', 2, { seq: 5 })).toEqual({ schemaVersion: 2, data: { seq: 5 } });
});

test('upcasting lifts an old shape step by step and leaves current events alone', () => {
  expect(upcast('AttemptQueued', 1, { attempt_id: 'at_1' })).toEqual({ schemaVersion: 2, data: { config_version: null, attempt_id: 'at_1' } });
  const current = { config_version: 'cv_1', rollout_id: 'ro_1', recovery_ref: null, intent_id: 'in_1' };
  expect(upcast('IntentOpened', 2, current)).toEqual({ schemaVersion: 2, data: current });
  expect(upcast('NodeLabelsReplaced', 1, { node_id: 'n' })).toEqual({ schemaVersion: 1, data: { node_id: 'n' } });
});
