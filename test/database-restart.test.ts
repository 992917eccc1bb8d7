import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { eventually, TestAgent } from './support/fleet.ts';
import { caller, testConfig, TOKENS } from './support/hub.ts';
import { startOwnServer, type OwnServer, type StopMode } from './support/own-server.ts';
import { startConfiguredHub, type HubProcess } from './support/process.ts';

// The Hub's PostgreSQL restarts (fast and immediate shutdowns) while operators write, agents report and
// long-poll, and viewers read: the Hub process stays up, answers 503 with Retry-After and the error envelope
// while the database is away, recovers by itself, and every write it acknowledged is in the log.
let server: OwnServer;
let hub: HubProcess;
let dir: string;
const NODES = ['edge-1', 'edge-2', 'edge-3'];

beforeAll(async () => {
  server = await startOwnServer();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-restart-'));
  hub = await startConfiguredHub({ databaseUrl: server.url(), dir, config: testConfig(NODES.length, { lease_ms: 3000 }).file });
}, 60_000);

afterAll(async () => {
  await hub?.stop("SIGKILL");
  await server?.destroy();
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  what: string;
  status: number;
  body: any;
  retryAfter: string | null;
}

/** A workload of operators, agents and viewers that runs until stopped, keeping every answer. */
function workload(api: ReturnType<typeof caller>) {
  const answers: Answer[] = [];
  /** Desired writes the Hub acknowledged: stream id and the generation it answered. */
  const acknowledged: Array<{ stream: string; generation: number }> = [];
  let running = true;
  const keep = (what: string, r: { status: number; body: any; headers: Headers }) => {
    answers.push({ what, status: r.status, body: r.body, retryAfter: r.headers.get('retry-after') });
    return r;
  };
  // A refused connection (the Hub itself gone) is an answer too: status 0.
  const attempt = async (what: string, call: () => Promise<{ status: number; body: any; headers: Headers }>) => {
    try {
      return keep(what, await call());
    } catch (e) {
      answers.push({ what, status: 0, body: String(e), retryAfter: null });
      return null;
    }
  };
  const pause = () => new Promise((r) => setTimeout(r, 20));
  const writer = async (w: number) => {
    for (let n = 0; running; n++) {
      const stream = `w${w}-${n % 5}`;
      const r = await attempt('write', () =>
        api.call('PUT', `/api/v1/streams/${stream}`, {
          token: TOKENS.operator,
          headers: { 'idempotency-key': `w${w}-${n}` },
          body: { desired_state: 'running', spec: { n }, placement: { nodes: [NODES[n % NODES.length]!] } },
        }),
      );
      if (r?.status === 200 || r?.status === 201) acknowledged.push({ stream, generation: Number(JSON.parse(r.headers.get('etag')!)) });
      await pause();
    }
  };
  const agent = async (nodeId: string) => {
    const a = new TestAgent(api, nodeId);
    while (running) {
      await attempt('register', () => a.register());
      for (let i = 0; running && i < 50; i++) {
        await attempt('report', () => a.report());
        const polled = await attempt('poll', () => a.call('GET', '/api/v1/agent/attempts?wait=1'));
        for (const at of polled?.status === 200 ? (polled.body.attempts as any[]) : []) {
          a.apply(at);
          await attempt('result', () => a.result(at.attempt_id, { outcome: 'success' }));
        }
      }
    }
  };
  const viewer = async () => {
    while (running) {
      await attempt('read', () => api.call('GET', '/api/v1/nodes', { token: TOKENS.viewer }));
      await pause();
    }
  };
  const done = Promise.all([writer(1), writer(2), ...NODES.map(agent), viewer()]);
  return {
    answers,
    acknowledged,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Waits until a read answers as `status` does. */
const readAnswers = (api: ReturnType<typeof caller>, expected: number) =>
  eventually(async () => {
    const r = await api.call('GET', '/api/v1/nodes', { token: TOKENS.viewer }).catch(() => null);
    return r?.status === expected ? r : undefined;
  }, 60_000);

async function outage(api: ReturnType<typeof caller>, mode: StopMode) {
  await server.stop(mode);
  // While the database is away: 503, the envelope, and a Retry-After a client or load balancer honours.
  const away = await readAnswers(api, 503);
  expect(away.body).toMatchObject({ code: 'database_unavailable', correlation_id: expect.any(String), details: {} });
  expect(Number(away.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((await api.call('GET', '/readyz', { token: null })).status).toBe(503);
  await new Promise((r) => setTimeout(r, 2000));
  await server.start();
  await readAnswers(api, 200);
  await eventually(async () => ((await api.call('GET', '/readyz', { token: null })).status === 200 ? true : undefined), 60_000);
}

/** An event stream opened before the outages: the text it has received so far. */
function followEvents(url: string, stop: AbortSignal) {
  let text = '';
  const reading = (async () => {
    const res = await fetch(`${url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${TOKENS.viewer}` }, signal: stop });
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) text += decoder.decode(chunk as Uint8Array, { stream: true });
  })().catch(() => {});
  return { received: () => text, reading };
}

/**
 * Two outages while the workload runs, then a write reconciled to its agent once the database is back, and
 * seen by an event stream that stayed open throughout.
 */
async function underLoad(api: ReturnType<typeof caller>, load: ReturnType<typeof workload>) {
  const closeStream = new AbortController();
  const events = followEvents(hub.url, closeStream.signal);
  await new Promise((r) => setTimeout(r, 1500));
  await outage(api, 'fast');
  await new Promise((r) => setTimeout(r, 1500));
  await outage(api, 'immediate');
  // Recovered by itself: writes are acknowledged again, and the workers reconcile them to the agents.
  const before = load.acknowledged.length;
  await eventually(async () => (load.acknowledged.length > before + 5 ? true : undefined), 30_000);
  const after = await api.call('PUT', '/api/v1/streams/after-restarts', { token: TOKENS.operator, body: { desired_state: 'running', placement: { nodes: ['edge-1'] } } });
  expect(after.status).toBeLessThan(300);
  await eventually(async () => {
    const items = (await api.call('GET', '/api/v1/intents?stream_id=after-restarts')).body.items as Array<{ state: string }>;
    return items[0]?.state === 'converged' ? true : undefined;
  }, 30_000);
  await eventually(async () => (events.received().includes('"stream_id":"stream:after-restarts"') ? true : undefined), 30_000);
  closeStream.abort();
  await events.reading;
}

test('the Hub stays up through PostgreSQL restarts (fast, then immediate) under load, answers 503 while the database is away, and keeps every acknowledged write', async () => {
  const api = caller(hub.url);
  const load = workload(api);
  try {
    await underLoad(api, load);
  } catch (e) {
    process.stderr.write(`the Hub's output:\n${hub.output().slice(-6000)}\n`);
    throw e;
  } finally {
    await load.stop();
  }

  expect(hub.child.exitCode).toBeNull();
  expect(hub.child.signalCode).toBeNull();
  // No answer was a 500 or a dropped connection; every refusal carried the envelope.
  const failed = load.answers.filter((a) => a.status === 0 || (a.status >= 500 && a.status !== 503));
  expect(failed.slice(0, 5)).toEqual([]);
  for (const a of load.answers.filter((x) => x.status >= 400)) {
    expect(a.body).toMatchObject({ code: expect.any(String), message: expect.any(String), correlation_id: expect.any(String) });
    if (a.status === 503) expect(Number(a.retryAfter)).toBeGreaterThan(0);
  }
  expect(load.answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);

  // Every acknowledged write is in the log.
  const client = new pg.Client({ connectionString: server.url() });
  await client.connect();
  try {
    const { rows } = await client.query<{ stream_id: string; generation: number }>(
      `SELECT data->>'stream_id' AS stream_id, (data->>'generation')::int AS generation FROM events WHERE type = 'StreamDesired'`,
    );
    const logged = new Set(rows.map((r) => `${r.stream_id}@${r.generation}`));
    const lost = load.acknowledged.filter((w) => !logged.has(`${w.stream}@${w.generation}`));
    expect(load.acknowledged.length).toBeGreaterThan(10);
    expect(lost).toEqual([]);
  } finally {
    await client.end();
  }
}, 240_000);
