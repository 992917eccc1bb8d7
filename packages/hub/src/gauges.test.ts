import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPROVAL_STATUSES, INTENT_STATES, ROLLOUT_STATES } from '@fleetplane/core';
import { sql } from 'kysely';
import { event } from '../../../test/support/events.ts';
import { parseExposition, sampleValue, type Family } from '../../../test/support/exposition.ts';
import { eventually, latestIntent, takeAttempts, TestAgent } from '../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../test/support/hub.ts';
import { hubSuite } from '../../../test/support/hub-suite.ts';
import { SEGMENT_STATES } from './archiver/plan.ts';
import { appendToStream } from './event-store/append.ts';
import { follow } from './event-store/follow.ts';
import { logEnd } from './event-store/read-all.ts';

// Issue 22 item 4: what operators alert on. /metrics is scraped from a Hub on PostgreSQL and read with a strict
// parser of the text format (test/support/exposition.ts), never with a pattern over the text.
let now = new Date('2026-11-30T12:00:00.000Z');
const clock = { now: () => now };
const advance = (ms: number) => {
  now = new Date(now.getTime() + ms);
};
const suite = hubSuite({ config: testConfig(3, { stale_after_ms: 30_000, offline_after_ms: 120_000 }), clock });

async function scrape(): Promise<Map<string, Family>> {
  const r = await suite.hub.call('GET', '/metrics', { token: null });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(r.body);
}

/** A gauge's series by the value of its one label: { state: value }. */
const byLabel = (families: Map<string, Family>, name: string, label: string): Record<string, number> =>
  Object.fromEntries((families.get(name)?.samples ?? []).map((s) => [s.labels[label], s.value]));
const zeros = (values: readonly string[]) => Object.fromEntries(values.map((v) => [v, 0]));

test('issue 22: on an empty fleet every state of every state gauge is a series at 0', async () => {
  const families = await scrape();
  expect(byLabel(families, 'fleetplane_intents', 'state')).toEqual(zeros(INTENT_STATES));
  expect(byLabel(families, 'fleetplane_rollouts', 'state')).toEqual(zeros(ROLLOUT_STATES));
  expect(byLabel(families, 'fleetplane_config_approvals', 'status')).toEqual(zeros(APPROVAL_STATUSES));
  expect(byLabel(families, 'fleetplane_nodes', 'liveness')).toEqual({ online: 0, stale: 0, offline: 0 });
  expect(Object.keys(byLabel(families, 'fleetplane_log_segments', 'state'))).toEqual([...SEGMENT_STATES]);
  expect(Object.keys(byLabel(families, 'fleetplane_job_queue_depth', 'queue')).sort()).toEqual(
    expect.arrayContaining(['reconcile', 'reconcile-retry']),
  );
  for (const name of ['fleetplane_recovery_holds', 'fleetplane_long_poll_nodes', 'fleetplane_log_followers', 'fleetplane_log_follow_lag_positions', 'fleetplane_log_follow_lag_seconds']) {
    expect([name, sampleValue(families, name)]).toEqual([name, 0]);
  }
});

test("issue 22: the process's and Node.js's runtime metrics are scraped with the Hub's", async () => {
  const families = await scrape();
  const types = Object.fromEntries(
    [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'process_open_fds',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_active_handles_total',
      'nodejs_gc_duration_seconds',
      'nodejs_version_info',
    ].map((name) => [name, families.get(name)?.type]),
  );
  expect(types).toEqual({
    process_cpu_seconds_total: 'counter',
    process_resident_memory_bytes: 'gauge',
    process_start_time_seconds: 'gauge',
    process_open_fds: 'gauge',
    nodejs_eventloop_lag_seconds: 'gauge',
    nodejs_eventloop_lag_p99_seconds: 'gauge',
    nodejs_heap_size_used_bytes: 'gauge',
    nodejs_active_handles_total: 'gauge',
    nodejs_gc_duration_seconds: 'histogram',
    nodejs_version_info: 'gauge',
  });
  expect(sampleValue(families, 'process_cpu_seconds_total')).toBeGreaterThan(0);
  expect(families.get('nodejs_version_info')!.samples[0]!.labels.version).toBe(process.version);
});

test('issue 22: blocked intents go back to 0, as a series, once the blocked intent is superseded', async () => {
  const put = (generationNote: string) =>
    suite.hub.call('PUT', '/api/v1/streams/metrics-blocked', {
      token: TOKENS.operator,
      body: { desired_state: 'running', spec: { command: 'sleep', args: [generationNote] }, placement: { nodes: ['edge-1'] } },
    });
  const agent = new TestAgent(suite.hub, 'edge-1');
  await agent.register();
  expect((await put('first')).status).toBeLessThan(300);
  const [attempt] = await takeAttempts(agent, 'metrics-blocked');
  await agent.result(attempt.attempt_id, { outcome: 'failed', generation: 1, failure_class: 'permanent', code: 'bad_spec' });
  expect((await latestIntent(suite.hub, 'metrics-blocked', 'edge-1')).state).toBe('blocked');
  expect(byLabel(await scrape(), 'fleetplane_intents', 'state')).toEqual({ ...zeros(INTENT_STATES), blocked: 1 });

  expect((await put('second')).status).toBeLessThan(300);
  expect((await latestIntent(suite.hub, 'metrics-blocked', 'edge-1')).generation).toBe(2);
  const states = byLabel(await scrape(), 'fleetplane_intents', 'state');
  expect(states.blocked).toBe(0);
  expect(states.superseded).toBe(1);
});

test('issue 22: nodes by liveness follow the age of their last contact, as GET /nodes?liveness= does', async () => {
  // edge-1 registered in the test before, at this same time.
  await new TestAgent(suite.hub, 'edge-2').register();
  await new TestAgent(suite.hub, 'edge-3').register();
  expect(byLabel(await scrape(), 'fleetplane_nodes', 'liveness')).toEqual({ online: 3, stale: 0, offline: 0 });
  advance(100_000);
  expect((await new TestAgent(suite.hub, 'edge-2').report()).status).toBe(202);
  advance(40_000);
  expect((await new TestAgent(suite.hub, 'edge-3').report()).status).toBe(202);
  // edge-1: last seen 140 s ago (offline); edge-2: 40 s ago (stale); edge-3: now (online).
  const live = byLabel(await scrape(), 'fleetplane_nodes', 'liveness');
  expect(live).toEqual({ online: 1, stale: 1, offline: 1 });
  for (const state of ['online', 'stale', 'offline']) {
    const listed = (await suite.hub.call('GET', `/api/v1/nodes?liveness=${state}`)).body.items.map((n: any) => n.node_id);
    expect([state, listed.length]).toEqual([state, live[state]]);
  }
});

test('issue 22: follow lag: an event stream that has sent everything is 0 behind; one held back is as far behind as the log has grown past it', async () => {
  const lag = async () => {
    const families = await scrape();
    return {
      followers: sampleValue(families, 'fleetplane_log_followers'),
      positions: sampleValue(families, 'fleetplane_log_follow_lag_positions'),
      seconds: sampleValue(families, 'fleetplane_log_follow_lag_seconds'),
    };
  };
  const lagIs = (want: Awaited<ReturnType<typeof lag>>) =>
    eventually(async () => {
      const got = await lag();
      return JSON.stringify(got) === JSON.stringify(want) ? got : undefined;
    });

  // A client on GET /events/stream, reading as events come: caught up.
  const abort = new AbortController();
  const stream = await fetch(`${suite.hub.url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${TOKENS.viewer}` }, signal: abort.signal });
  expect(stream.status).toBe(200);
  const reading = (async () => {
    try {
      for await (const _ of stream.body!);
    } catch {
      // aborted
    }
  })();
  await lagIs({ followers: 1, positions: 0, seconds: 0 });
  abort.abort();
  await reading;
  await lagIs({ followers: 0, positions: 0, seconds: 0 });

  // The log's end lies below the oldest transaction running anywhere on the server (logEnd), whose other
  // databases a full run's other suites use: one of their transactions held open holds the end back. Each
  // check below waits, within a generous bound, for the end to reach the last event this database holds.
  const endAt = (position: number) =>
    eventually(async () => {
      const end = await logEnd(suite.t.db);
      return end.position >= position ? end : undefined;
    }, 40_000);
  const newest = async () => Number((await sql<{ p: string }>`SELECT coalesce(max(position), 0) AS p FROM events`.execute(suite.t.db)).rows[0]!.p);

  // A stream held back: its follower hands events to a client that does not take them until released.
  const from = await endAt(await newest());
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const follower = follow(suite.t.db, suite.hub.context.streams.appends, { after: from, onEvents: () => held });
  const slot = {
    principal: 'audit',
    get cursor() {
      return follower.cursor;
    },
  };
  suite.hub.context.streams.followers.add(slot);
  try {
    const appended = await appendToStream(suite.t.db, 'metrics-lag', 'any', [1, 2, 3].map((n) => ({ ...event('Probed', { n }), recordedAt: now })));
    if (!appended.ok) throw new Error(JSON.stringify(appended.error));
    const last = appended.events.at(-1)!.position;
    await endAt(last);
    advance(5_000);
    await lagIs({ followers: 1, positions: last - from.position, seconds: 5 });
    release();
    await lagIs({ followers: 1, positions: 0, seconds: 0 });
  } finally {
    // A follower stops once its handler returns: released here too, so that a failed check fails the test with
    // its own error rather than holding the stop until the test's timeout.
    release();
    suite.hub.context.streams.followers.delete(slot);
    await follower.stop();
  }
}, 60_000);

test("issue 22: every metric the README's \"Metrics and alerts\" names, its alert rules' too, is in the exposition", async () => {
  const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
  const section = /^## Metrics and alerts\n([\s\S]*?)^## /m.exec(readme)![1]!;
  const names = [...new Set(section.match(/\b(fleetplane|process|nodejs)_[a-z0-9_]+/g))];
  const rules = section.slice(section.indexOf('```yaml'));
  expect(rules.match(/expr: .*/g)).toHaveLength(8);
  const families = await scrape();
  // This Hub serves plain HTTP: the certificate's series is a Hub over HTTPS's (test/tls.test.ts reads it there).
  // It runs on the test's clock: the clock offset is a Hub's on its host's clock (test/clock-skew.test.ts reads it).
  const elsewhere = ['fleetplane_tls_certificate_expiry_timestamp_seconds', 'fleetplane_clock_offset_seconds'];
  expect(names).toEqual(expect.arrayContaining(elsewhere));
  expect(names.filter((name) => !families.has(name) && !elsewhere.includes(name))).toEqual([]);
  expect(names.length).toBeGreaterThan(10);
});
