import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { currentSchemaVersion, upcast } from '@fleetplane/core';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
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

interface StoredEvent {
  stream_id: string;
  type: string;
  schema_version: number;
  event_id: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_at: string;
}

const fixture = (name: string): StoredEvent[] =>
  readFileSync(join(__dirname, '../../../../test/fixtures/events', name), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as StoredEvent);

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

test('upcasting lifts an old shape step by step and leaves current events alone', () => {
  expect(upcast('AttemptQueued', 1, { attempt_id: 'at_1' })).toEqual({ schemaVersion: 2, data: { config_version: null, attempt_id: 'at_1' } });
  const current = { config_version: 'cv_1', rollout_id: 'ro_1', recovery_ref: null, intent_id: 'in_1' };
  expect(upcast('IntentOpened', 2, current)).toEqual({ schemaVersion: 2, data: current });
  expect(upcast('NodeLabelsReplaced', 1, { node_id: 'n' })).toEqual({ schemaVersion: 1, data: { node_id: 'n' } });
});
