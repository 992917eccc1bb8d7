import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from './agent.ts';
import { honouredFlags } from './control-server.ts';
import type { AttemptCommand, ExecutionResult } from './executors/executor.ts';
import { createSimExecutor, type SimExecutor } from './executors/sim.ts';
import { FakeHub, waitFor } from '../../../test/support/fake-hub.ts';

// The agent's control endpoint (SPEC I1) against a fake Hub: the agent registers, reports, polls and posts
// results to it; the test calls the control endpoint as the Hub (node_proxy) or as anyone else would.

const HUB_TOKEN = 'hub-to-node-token';
const OPERATOR_TOKEN = 'operator-api-token';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

let seq = 0;
const nextId = () => `at_${++seq}`;
const apply = (version: string, capture: boolean): AttemptCommand => {
  const id = nextId();
  return {
    attempt_id: id,
    intent_id: `in_${id}`,
    operation: 'config_apply',
    stream_id: 'config',
    generation: 1,
    spec: { content: `content of ${version}` },
    action_id: null,
    config_version: version,
    flags: capture ? { capture_recovery: true } : {},
  };
};
const restore = (version: string): AttemptCommand => {
  const id = nextId();
  return { attempt_id: id, intent_id: `in_${id}`, operation: 'restore', stream_id: 'config', generation: 1, spec: {}, action_id: null, config_version: version, flags: {} };
};
const start = (generation = 1): AttemptCommand => {
  const id = nextId();
  return { attempt_id: id, intent_id: `in_${id}`, operation: 'job_start', stream_id: 'ingest', generation, spec: {}, action_id: null, config_version: null, flags: {} };
};

let hub: FakeHub;
let dir: string;
let sim: SimExecutor;
let agent: Agent;
let logs: Array<{ message: string } & Record<string, unknown>>;
let controlUrl: string;

async function startAgent(hubCredentialSha256: string | null = sha256(HUB_TOKEN)): Promise<void> {
  sim = createSimExecutor();
  logs = [];
  agent = new Agent({
    hub: hub.url,
    nodeId: 'edge-1',
    token: 'edge-1-agent-token',
    stateDir: dir,
    executor: sim,
    control: { host: '127.0.0.1', port: 0 },
    hubCredentialSha256,
    pollSeconds: 1,
    reportEveryMs: 60_000,
    log: (level, message, fields) => logs.push({ level, message, ...fields }),
  });
  await agent.start();
  controlUrl = `http://${agent.controlEndpoint}`;
}

beforeEach(async () => {
  hub = new FakeHub();
  await hub.start();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-control-'));
  await startAgent();
});

afterEach(async () => {
  await agent.stop();
  await hub.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Calls the control endpoint; `auth` is a bearer token, a cookie, or nothing. */
async function call(path: string, body: unknown, auth: { bearer?: string; cookie?: string } = { bearer: HUB_TOKEN }) {
  const res = await fetch(controlUrl + path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(auth.bearer ? { authorization: `Bearer ${auth.bearer}` } : {}),
      ...(auth.cookie ? { cookie: auth.cookie } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

type Scope = 'node_proxy' | 'pilot_tunnel';

/** Runs one configuration command through a scope: a push from the Hub, or an attempt from the long poll. */
async function through(scope: Scope, command: AttemptCommand): Promise<ExecutionResult> {
  if (scope === 'node_proxy') {
    const r = await call(command.operation === 'restore' ? '/v1/restore' : '/v1/apply', command);
    expect(r.status).toBe(200);
    expect(r.body.attempt_id).toBe(command.attempt_id);
    // The answer and the result posted to the Hub agree.
    expect(await hub.result(command.attempt_id)).toMatchObject({ outcome: r.body.result.outcome, code: r.body.result.code });
    return r.body.result;
  }
  hub.deliver(command);
  return hub.result(command.attempt_id);
}

const received = (attemptId: string) => logs.filter((l) => l.message === 'attempt received' && l.attempt_id === attemptId);

describe.each(['node_proxy', 'pilot_tunnel'] as const)('under %s', (scope) => {
  test(`I1 capture_recovery is honoured under ${scope}: a later restore finds the recovery point`, async () => {
    const v1 = apply('cv_1', false);
    const v2 = apply('cv_2', true);
    expect(await through(scope, v1)).toMatchObject({ outcome: 'succeeded' });
    expect(await through(scope, v2)).toMatchObject({ outcome: 'succeeded' });
    expect((await sim.configuration()).recovery_points).toEqual([{ ref: `rp_${v2.attempt_id}`, config_version: 'cv_1' }]);

    const back = restore('cv_1');
    expect(await through(scope, back)).toMatchObject({ outcome: 'succeeded' });
    expect(sim.configContent()).toBe('content of cv_1');
    expect((await sim.configuration()).applied_version).toBe('cv_1');
    // Every one of them passed the control endpoint's gate, with this scope.
    for (const c of [v1, v2, back]) expect(received(c.attempt_id)).toEqual([expect.objectContaining({ channel: scope })]);
  });

  test(`I1 restore is honoured under ${scope}, whichever scope captured the point`, async () => {
    const other: Scope = scope === 'node_proxy' ? 'pilot_tunnel' : 'node_proxy';
    await through(other, apply('cv_1', false));
    await through(other, apply('cv_2', true));
    const back = restore('cv_1');
    expect(await through(scope, back)).toMatchObject({ outcome: 'succeeded', mutation: null });
    expect(sim.configContent()).toBe('content of cv_1');
    expect(received(back.attempt_id)).toEqual([expect.objectContaining({ channel: scope, operation: 'restore' })]);
  });

  test(`I1 without the flag nothing is captured under ${scope}, and the restore is refused pre-mutation`, async () => {
    await through(scope, apply('cv_1', false));
    await through(scope, apply('cv_2', false));
    expect((await sim.configuration()).recovery_points).toEqual([]);
    expect(await through(scope, restore('cv_1'))).toMatchObject({ outcome: 'failed', code: 'no_recovery_point', mutation: 'pre_mutation' });
    expect(sim.configContent()).toBe('content of cv_2');
  });

  test(`every attempt's outcome is logged under ${scope}: a success at info, a refusal at warn with its code`, async () => {
    const ok = apply('cv_1', false);
    const refused = restore('cv_0');
    await through(scope, ok);
    await through(scope, refused);
    const finished = logs.filter((l) => l.message === 'attempt finished');
    expect(finished).toEqual([
      expect.objectContaining({ level: 'info', node_id: 'edge-1', attempt_id: ok.attempt_id, operation: 'config_apply', config_version: 'cv_1', outcome: 'succeeded', code: null }),
      expect.objectContaining({ level: 'warn', attempt_id: refused.attempt_id, operation: 'restore', outcome: 'failed', code: 'no_recovery_point', mutation: 'pre_mutation' }),
    ]);
    for (const line of finished) expect(line.duration_ms).toEqual(expect.any(Number));
  });
});

test('I1 both machine scopes keep the capture flag; any other scope loses it and keeps the unprivileged ones', () => {
  const flags = { capture_recovery: true, other: true };
  for (const scope of ['node_proxy', 'pilot_tunnel']) expect(honouredFlags(scope, flags)).toEqual(flags);
  for (const scope of ['session', 'operator', 'agent', 'NODE_PROXY', '']) expect(honouredFlags(scope, flags)).toEqual({ other: true });
});

describe('refused credentials: nothing is executed', () => {
  async function refused(auth: { bearer?: string; cookie?: string }, status: number, code: string) {
    await through('node_proxy', apply('cv_1', false));
    const before = { content: sim.configContent(), results: hub.results.size };
    const commands = [
      ['/v1/apply', apply('cv_2', true)],
      ['/v1/restore', restore('cv_1')],
      ['/v1/attempts', start()],
      ['/v1/attempts', apply('cv_3', true)],
    ] as const;
    for (const [path, command] of commands) {
      const r = await call(path, command, auth);
      expect([r.status, r.body.code]).toEqual([status, code]);
      expect(r.body.correlation_id).toEqual(expect.any(String));
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(sim.configContent()).toBe(before.content);
    expect((await sim.configuration()).recovery_points).toEqual([]);
    expect(await sim.observe()).toEqual([]);
    expect(hub.results.size).toBe(before.results);
    // Not even journalled: the same attempts are still new to the agent.
    const journal = await readFile(join(dir, 'attempts.jsonl'), 'utf8');
    for (const [, command] of commands) expect(journal).not.toContain(command.attempt_id);
  }

  test('I1 an operator API token is refused (403)', () => refused({ bearer: OPERATOR_TOKEN }, 403, 'machine_scope_required'));
  test('I1 a user session cookie is refused (401)', () => refused({ cookie: 'fleetplane_session=s%3Aalice.signature' }, 401, 'unauthenticated'));
  test('I1 a missing token is refused (401)', () => refused({}, 401, 'unauthenticated'));
  test('I1 the agent\'s own node token is not a hub-to-node credential (403)', () => refused({ bearer: 'edge-1-agent-token' }, 403, 'machine_scope_required'));

  test('I1 without a configured hub credential, node_proxy is closed: the Hub token is refused too', async () => {
    await agent.stop();
    await startAgent(null);
    const r = await call('/v1/apply', apply('cv_1', true));
    expect([r.status, r.body.code]).toEqual([403, 'machine_scope_required']);
    expect(sim.configContent()).toBeNull();
    // The pull channel still reaches the same handler with the loopback token.
    const pulled = apply('cv_1', false);
    hub.deliver(pulled);
    expect(await hub.result(pulled.attempt_id)).toMatchObject({ outcome: 'succeeded' });
    expect(received(pulled.attempt_id)).toEqual([expect.objectContaining({ channel: 'pilot_tunnel' })]);
  });
});

describe('POST /v1/attempts (node_proxy push)', () => {
  test('answers 202 at once; the result goes to the Hub; a repeat runs nothing again', async () => {
    const command = start();
    const r = await call('/v1/attempts', command);
    expect([r.status, r.body]).toEqual([202, { accepted: true, attempt_id: command.attempt_id }]);
    expect(await hub.result(command.attempt_id)).toMatchObject({ outcome: 'succeeded', generation: 1 });
    expect(sim.instance('ingest')).toBe(1);

    hub.results.clear();
    expect((await call('/v1/attempts', command)).status).toBe(202);
    // Answered from the journal: the same result again, nothing restarted.
    expect(await hub.result(command.attempt_id)).toMatchObject({ outcome: 'succeeded' });
    expect(sim.instance('ingest')).toBe(1);
    expect(received(command.attempt_id).map((l) => l.channel)).toEqual(['node_proxy', 'node_proxy']);
  });

  test('a configuration attempt pushed to /v1/attempts keeps its capture flag', async () => {
    await through('node_proxy', apply('cv_1', false));
    const v2 = apply('cv_2', true);
    expect((await call('/v1/attempts', v2)).status).toBe(202);
    expect(await hub.result(v2.attempt_id)).toMatchObject({ outcome: 'succeeded' });
    expect((await sim.configuration()).recovery_points).toEqual([{ ref: `rp_${v2.attempt_id}`, config_version: 'cv_1' }]);
  });

  test('bad input is refused after authentication: 400, nothing run', async () => {
    expect((await call('/v1/attempts', { attempt_id: 'x' })).body.code).toBe('invalid_attempt');
    expect((await call('/v1/apply', restore('cv_1'))).body.code).toBe('operation_mismatch');
    const res = await fetch(controlUrl + '/v1/apply', { method: 'POST', headers: { authorization: `Bearer ${HUB_TOKEN}` }, body: '{not json' });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([400, 'invalid_json']);
    const anonymous = await fetch(controlUrl + '/v1/apply', { method: 'POST', body: '{not json' });
    expect(anonymous.status).toBe(401);
    expect((await call('/v1/nothing', start())).status).toBe(404);
    expect(hub.results.size).toBe(0);
  });
});
