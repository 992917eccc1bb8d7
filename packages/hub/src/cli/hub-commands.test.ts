import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fleetplane } from '../../../../test/support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import { EXIT } from './exit.ts';
import { run } from './run.ts';

// The operator CLI against a real Hub and database: every command through `run`, the bin once as a process.

let t: TestDatabase;
let hub: TestHub;
let dir: string;
const agents: TestAgent[] = [];
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(9, { mode: 'configuration' }) });
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-cli-'));
  for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) agents.push(await TestAgent.reporting(hub, `edge-${n}`));
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
  await rm(dir, { recursive: true, force: true });
});

const as = (token: string) => (...args: string[]) => fleetplane(args, { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: token });
const operator = as(TOKENS.operator);
const admin = as(TOKENS.admin);
const admin2 = as(TOKENS.admin2);

/** The node takes its configuration attempt, applies it, answers and reports, as an agent does. */
async function applyConfig(agent: TestAgent): Promise<void> {
  const [attempt] = await takeConfigAttempts(agent);
  agent.apply(attempt);
  expect((await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation })).status).toBe(200);
  expect((await agent.report()).status).toBe(202);
}

async function configVersion(content: string): Promise<string> {
  const file = join(dir, `${content}.yaml`);
  await writeFile(file, content);
  const created = await operator('--json', 'config', 'create', '--file', file, '--format', 'yaml');
  expect(created.code).toBe(EXIT.ok);
  return created.json().config_version;
}

test('nodes lists and shows nodes; label merges into the current labels, removes k-, or replaces with --replace', async () => {
  const listed = await operator('nodes');
  expect(listed.code).toBe(0);
  expect(listed.out.split('\n')[0]).toMatch(/^NODE\s+LIVENESS\s+MAINTENANCE\s+MODE\s+CONFIG\s+LABELS$/);
  expect(listed.out).toMatch(/^edge-1\s+online\s+active\s+configuration\s+-\s+-$/m);

  expect((await operator('label', 'edge-1', 'env=prod', 'tier=edge', 'zone=eu')).code).toBe(0);
  const merged = await operator('--json', 'label', 'edge-1', 'zone=us', 'tier-');
  expect(merged.json().labels).toEqual({ env: 'prod', zone: 'us' });
  const replaced = await operator('label', 'edge-1', 'env=dev', '--replace', '--json');
  expect(replaced.json().labels).toEqual({ env: 'dev' });
  const shown = await operator('nodes', 'get', 'edge-1');
  expect(shown.out).toMatch(/^labels:\s+env=dev$/m);
  // Its one report (at the start of this file: the minute may have passed on a slow machine, the hour has not).
  expect(shown.out).toMatch(/^reports:\s+[01] in the last minute \([01] changed\), 1 in the last hour \(1 changed\)$/m);
  expect((await hub.call('GET', '/api/v1/nodes/edge-1')).body.labels).toEqual({ env: 'dev' });
});

test('drain and undrain change maintenance; refusals exit 3 with the Hub\'s code: message, usage errors exit 2', async () => {
  expect((await operator('--json', 'drain', 'edge-2')).json().maintenance).toBe('draining');
  expect((await operator('--json', 'nodes', 'get', 'edge-2')).json()).toMatchObject({ node_id: 'edge-2', maintenance: 'draining' });
  expect((await operator('--json', 'undrain', 'edge-2')).json().maintenance).toBe('active');

  const missing = await operator('nodes', 'get', 'nope');
  expect(missing).toMatchObject({ code: EXIT.refused, out: '' });
  // The refusal, then the command that helps, then the id that finds the request in the Hub's log.
  expect(missing.err).toMatch(/^node_not_found: node nope is not registered\nnext: `fleetplane nodes` lists the nodes\ncorrelation_id: \S+\n$/);
  // Labels are checked by the Hub's own syntax before anything is sent.
  const syntax = 'takes letters, digits, "-", "_" and "." only, starting and ending with a letter or digit';
  for (const [item, problem] of [
    [`k=${'x'.repeat(64)}`, `value "${'x'.repeat(64)}" of k is 64 characters long: at most 63`],
    ['bad key=x', `key "bad key" ${syntax}`],
    ['x=a,b', `value "a,b" of x ${syntax}`],
  ]) {
    const invalid = await operator('label', 'edge-2', item!);
    expect(invalid.code).toBe(EXIT.usage);
    expect(invalid.err).toMatch(new RegExp(`^label: ${problem!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
  }
  const bySelector = await operator('rollouts', 'create', '--version', 'cv', '--selector', 'tier=a b');
  expect(bySelector).toMatchObject({ code: EXIT.usage });
  expect(bySelector.err).toMatch(/^--selector: value "a b" of tier takes letters/);
  expect((await operator('--json', 'nodes', 'get', 'edge-2')).json().labels).toEqual({});
  expect((await as('wrong-token')('nodes')).code).toBe(EXIT.refused);
  expect((await as(TOKENS.viewer)('drain', 'edge-2')).err).toMatch(/^forbidden: /);

  for (const args of [['drain'], ['label', 'edge-2', 'novalue'], ['nodes', '--bogus'], ['rollouts', 'create', '--version', 'cv', '--nodes', 'a', '--selector', 'k=v']]) {
    const r = await operator(...args);
    expect([args, r.code]).toEqual([args, EXIT.usage]);
    expect(r.err).toMatch(/usage: fleetplane /);
  }
  expect((await fleetplane(['nodes'], { FLEETPLANE_HUB: 'http://127.0.0.1:1' })).code).toBe(EXIT.unreachable);
});

test('CLI: an https:// address of a plain-HTTP Hub is said to be that, not an untrusted certificate (exit 4)', async () => {
  const https = hub.url.replace(/^http:/, 'https:');
  const r = await fleetplane(['nodes'], { FLEETPLANE_HUB: https, FLEETPLANE_TOKEN: TOKENS.operator });
  expect(r).toMatchObject({ code: EXIT.unreachable, out: '' });
  expect(r.err).toBe(`cannot reach the Hub at ${https}: it did not answer TLS (ERR_SSL_WRONG_VERSION_NUMBER); is it serving plain HTTP? then use http://\n`);
});

test('CLI: a malformed Hub address is a usage error (exit 2) naming where it came from, refused before any request', async () => {
  for (const [args, env, named] of [
    [['nodes', '--hub', 'not-a-url'], {}, '--hub not-a-url'],
    [['nodes'], { FLEETPLANE_HUB: 'localhost:8080' }, 'FLEETPLANE_HUB localhost:8080'],
    [['nodes', '--hub', 'ftp://hub'], {}, '--hub ftp://hub'],
  ] as const) {
    const r = await fleetplane([...args], { FLEETPLANE_TOKEN: TOKENS.operator, ...env });
    expect([args, r.code]).toEqual([args, EXIT.usage]);
    expect(r.err).toMatch(new RegExp(`^${named.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a Hub address: give http://HOST:PORT or https://HOST:PORT\nusage: fleetplane nodes `));
  }
});

test('CLI: a malformed selector is named as the flag was typed, -l or --selector', async () => {
  for (const flag of ['-l', '--selector']) {
    const r = await operator('nodes', flag, 'env');
    expect([flag, r.code]).toEqual([flag, EXIT.usage]);
    expect(r.err).toMatch(new RegExp(`^${flag}: .*env`));
  }
});

test('B3 mode shows the global mode and its source; mode set changes it; mode node overrides one node, `global` removes that', async () => {
  expect((await operator('mode')).out).toBe("mode: configuration (the configuration file's)\n");
  expect((await operator('--json', 'mode', 'set', 'lifecycle')).json()).toEqual({ mode: 'lifecycle', source: 'operator' });
  expect((await operator('mode')).out).toBe('mode: lifecycle (set by an operator)\n');
  expect((await operator('--json', 'mode', 'node', 'edge-3', 'observe')).json()).toMatchObject({ node_id: 'edge-3', mode: 'observe', mode_override: 'observe' });
  expect((await operator('--json', 'mode', 'node', 'edge-3', 'global')).json()).toMatchObject({ node_id: 'edge-3', mode: 'lifecycle', mode_override: null });
  // CLI: a mode that is none is checked before sending, as other bad values are: a usage error.
  const sideways = await operator('mode', 'set', 'sideways');
  expect(sideways.code).toBe(EXIT.usage);
  expect(sideways.err).toMatch(/^the mode is observe, lifecycle, configuration, not sideways\nusage: fleetplane mode set /);
  const nodeSideways = await operator('mode', 'node', 'edge-3', 'sideways');
  expect(nodeSideways.code).toBe(EXIT.usage);
  expect(nodeSideways.err).toMatch(/^the mode is observe, lifecycle, configuration, global, not sideways\n/);
  expect((await operator('mode', 'set')).code).toBe(EXIT.usage);
  expect((await as(TOKENS.viewer)('mode', 'set', 'observe')).err).toMatch(/^forbidden: /);
  // The rest of this file rolls configuration out: back to configuration mode.
  expect((await operator('--json', 'mode', 'set', 'configuration')).json()).toEqual({ mode: 'configuration', source: 'operator' });
});

test('--help works on every command and group, and lists the exit codes', async () => {
  const top = await operator('--help');
  expect(top.code).toBe(0);
  expect(top.out).toMatch(/rollouts watch ID/);
  expect(top.out).toMatch(/4 {2}the Hub or the database cannot be reached/);
  const group = await operator('rollouts', '--help');
  expect(group.out).toMatch(/^usage: fleetplane rollouts <command>/);
  const label = await operator('label', '--help');
  expect(label.out).toMatch(/fetch|reads the\s+node/);
  expect(label.out).toMatch(/--replace/);
  expect((await operator('rollouts')).code).toBe(EXIT.usage);
});

test('an unknown command is refused in a few lines with the nearest command; --version prints the release', async () => {
  const typo = await operator('rollout', 'lst');
  expect(typo).toMatchObject({ code: EXIT.usage, out: '' });
  expect(typo.err).toBe('unknown command: rollout lst\ndid you mean: fleetplane rollouts list\n`fleetplane --help` lists the commands\n');
  const unknown = await operator('frobnicate');
  expect(unknown.err).toBe('unknown command: frobnicate\n`fleetplane --help` lists the commands\n');
  expect((await operator('rollouts', 'bogus')).err).toMatch(/^unknown command: rollouts bogus\n/);
  const version = await operator('--version');
  expect(version).toMatchObject({ code: EXIT.ok, err: '' });
  expect(version.out).toBe(`fleetplane ${JSON.parse(readFileSync(join(__dirname, '../../../../package.json'), 'utf8')).version}\n`);
  expect((await operator('--help')).out).toMatch(/--version\s+the Fleetplane release/);
});

test('approval_required names the command to run instead, on a Hub with the approval gate on', async () => {
  const gated = await startTestHub(t.url, { config: testConfig(7, { mode: 'configuration' }, { approval_required: true }) });
  try {
    const v = await configVersion('gated: yes');
    const refused = await fleetplane(['rollouts', 'create', '--version', v, '--nodes', 'edge-1'], { FLEETPLANE_HUB: gated.url, FLEETPLANE_TOKEN: TOKENS.operator });
    expect(refused.code).toBe(EXIT.refused);
    expect(refused.err).toMatch(/^approval_required: .*\nnext: the approval gate is on: submit the change with `fleetplane approvals submit` \(same options\), and have a second admin run `fleetplane approvals approve ID`\ncorrelation_id: /);
    expect(refused.err).not.toMatch(/POST/);
  } finally {
    await gated.stop();
  }
});

test('streams set writes a new generation; without --spec or --nodes it keeps the spec or placement and guards the write with If-Match', async () => {
  const created = await operator('--json', 'streams', 'set', 'ingest', '--state', 'running', '--nodes', 'edge-1', '--command', 'sleep', '--arg', '60', '--arg=-v');
  expect(created.code).toBe(0);
  expect(created.json()).toMatchObject({ stream_id: 'ingest', generation: 1, desired_state: 'running', spec: { command: 'sleep', args: ['60', '-v'] }, placement: { nodes: ['edge-1'], split: false } });
  const stopped = await operator('--json', 'streams', 'set', 'ingest', '--state', 'stopped', '--nodes', 'edge-1,edge-2');
  expect(stopped.json()).toMatchObject({ generation: 2, desired_state: 'stopped', spec: { command: 'sleep', args: ['60', '-v'] }, placement: { nodes: ['edge-1', 'edge-2'] } });
  const stale = await operator('streams', 'set', 'ingest', '--state', 'running', '--nodes', 'edge-1', '--spec', '{"command":"x"}', '--if-match', '1');
  expect(stale.code).toBe(EXIT.refused);
  expect(stale.err).toMatch(/^generation_conflict: /);
  expect((await operator('streams', 'set', 'ingest', '--state', 'running', '--nodes', 'edge-1', '--spec', '[1]')).code).toBe(EXIT.usage);

  const listed = await operator('streams', 'list');
  expect(listed.out).toMatch(/^ingest\s+2\s+stopped\s+edge-1,edge-2\s+no\s+-$/m);
  expect((await operator('--json', 'streams', 'get', 'ingest')).json().intents.map((i: any) => i.node_id)).toEqual(['edge-1', 'edge-2']);

  // Without --nodes it keeps the placement too; a new stream needs one.
  const running = await operator('--json', 'streams', 'set', 'ingest', '--state', 'running');
  expect(running.json()).toMatchObject({ generation: 3, desired_state: 'running', spec: { command: 'sleep', args: ['60', '-v'] }, placement: { nodes: ['edge-1', 'edge-2'], split: false } });
  const unplaced = await operator('streams', 'set', 'not-yet', '--state', 'running', '--command', 'sleep');
  expect([unplaced.code, unplaced.err]).toEqual([EXIT.usage, expect.stringMatching(/stream not-yet does not exist yet: give its placement with --nodes/)]);
  expect((await operator('streams', 'set', 'ingest', '--state', 'running', '--split')).code).toBe(EXIT.usage);
});

test('config create, rollouts create by selector, and rollouts watch until the rollout converges (exit 0)', async () => {
  for (const n of [3, 4]) expect((await operator('label', `edge-${n}`, 'tier=cache')).code).toBe(0);
  const v = await configVersion('cache: on');
  const listed = await operator('config', 'list');
  expect(listed.out).toMatch(new RegExp(`^${v}\\s+yaml\\s+9\\s+-\\s+sha256:`, 'm'));

  const created = await operator('--json', 'rollouts', 'create', '--version', v, '--selector', 'tier=cache', '--batch-size', '1');
  expect(created.code).toBe(0);
  const rollout = created.json();
  expect(rollout).toMatchObject({ config_version: v, selector: { tier: 'cache' }, batches: 2, state: 'applying' });

  const watching = operator('--json', 'rollouts', 'watch', rollout.rollout_id, '--interval', '50');
  await applyConfig(agents[2]!);
  await applyConfig(agents[3]!);
  const watched = await watching;
  expect(watched.code).toBe(EXIT.ok);
  const changes = watched.lines();
  expect(changes.at(-1)).toMatchObject({ rollout_id: rollout.rollout_id, state: 'converged' });
  // One line per change: no two consecutive lines are equal. (Which intermediate states a poll catches
  // depends on timing: a batch start queues its attempts at once, so the first batch may come and go between polls.)
  changes.slice(1).forEach((c, i) => expect(c).not.toEqual(changes[i]));

  const human = await operator('rollouts', 'watch', rollout.rollout_id);
  expect(human.code).toBe(0);
  expect(human.out).toMatch(/^rollout \S+ → \S+: converged, batch 2\/2$/m);
  expect(human.out).toMatch(/^ {2}batch 1 \[#{20}\] 1\/1 converged$/m);
  expect(human.out).toMatch(/^ {2}batch 2 \[#{20}\] 1\/1 converged$/m);
  expect((await operator('rollouts', 'list')).out).toMatch(new RegExp(`^${rollout.rollout_id}\\s+rollout\\s+${v}\\s+converged\\s+2/2\\s+2/2 converged\\s`, 'm'));
});

test('rollouts watch marks the current batch and exits 1 when the rollout is paused; pause, resume, cancel, rollback', async () => {
  const earlier = await configVersion('cache: earlier');
  const v = await configVersion('cache: off');
  const created = await operator('--json', 'rollouts', 'create', '--version', v, '--nodes', 'edge-3,edge-4');
  const id = created.json().rollout_id;
  expect((await operator('--json', 'rollouts', 'pause', id)).json().state).toBe('paused');
  const watched = await operator('rollouts', 'watch', id);
  expect(watched.code).toBe(EXIT.failed);
  expect(watched.out).toMatch(/: paused/);
  expect((await operator('--json', 'rollouts', 'resume', id)).json().state).toBe('applying');
  const progress = await operator('rollouts', 'get', id);
  // Batches are counted from 1, as the console counts them.
  expect(progress.out).toMatch(/^batch:\s+1 of 2 \(1 per batch\)$/m);
  expect(progress.out).toMatch(/^> batch 1 \[-{20}\] 0\/1 converged$/m);
  expect(progress.out).toMatch(/^ {2}batch 2 \[-{20}\] 0\/1 converged$/m);
  const back = await operator('--json', 'rollouts', 'rollback', id, '--version', earlier);
  expect(back.code).toBe(0);
  expect(back.json()).toMatchObject({ kind: 'rollback', rollback_of: id });
  expect((await operator('--json', 'rollouts', 'get', id)).json().state).toBe('rolled_back');
  // G5: the targets it left unfinished are named cancelled, in the list and in each batch.
  expect((await operator('rollouts', 'get', id)).out).toMatch(/^ {2}batch 1 \[-{20}\] 0\/1 converged, 1 cancelled$/m);
  expect((await operator('rollouts', 'list')).out).toMatch(new RegExp(`^${id}\\s+rollout\\s+${v}\\s+rolled_back\\s+1/2\\s+0/2 converged, 2 cancelled\\s`, 'm'));
  expect((await operator('rollouts', 'watch', id)).code).toBe(EXIT.failed);
  expect((await operator('rollouts', 'pause', back.json().rollout_id)).out).toMatch(/^state:\s+paused \(\w+\)$/m);
  const cancelled = await operator('--json', 'rollouts', 'cancel', back.json().rollout_id);
  expect(cancelled.json().state).toBe('cancelled');
  // An ended rollout shows no reason of its last pause.
  expect((await operator('rollouts', 'get', back.json().rollout_id)).out).toMatch(/^state:\s+cancelled$/m);
  const again = await operator('rollouts', 'pause', back.json().rollout_id);
  expect(again.code).toBe(EXIT.refused);
  expect((await operator('rollouts', 'rollback', id, '--scope', 'target')).code).toBe(EXIT.usage);
});

test('rollouts watch lists a failed target and exits 1 when the failure pauses the rollout', async () => {
  const v = await configVersion('broken: [');
  const id = (await operator('--json', 'rollouts', 'create', '--version', v, '--nodes', 'edge-5')).json().rollout_id;
  const [attempt] = await takeConfigAttempts(agents[4]!);
  const failed = { outcome: 'failed', generation: attempt.generation, failure_class: 'permanent', code: 'invalid_config', message: 'parse error' };
  expect((await agents[4]!.result(attempt.attempt_id, failed)).status).toBe(200);
  const watched = await operator('rollouts', 'watch', id, '--interval', '50');
  expect(watched.code).toBe(EXIT.failed);
  expect(watched.out).toMatch(/: paused/);
  expect(watched.out).toMatch(/^ {2}failed: edge-5 permanent invalid_config: parse error$/m);
});

test('L5 rollouts create takes a health gate; rollouts watch shows it soaking, then failed with its evidence, and exits 1', async () => {
  const v = await configVersion('gated: yes');
  const usage = await operator('rollouts', 'create', '--version', v, '--nodes', 'edge-8', '--max-unhealthy', '1');
  expect(usage.code).toBe(EXIT.usage);
  const created = await operator('--json', 'rollouts', 'create', '--version', v, '--nodes', 'edge-8', '--soak-ms', '600000');
  expect(created.json().health).toEqual({ soak_ms: 600_000, max_unhealthy_targets: 0, on_unhealthy: 'pause' });
  const id = created.json().rollout_id;
  expect((await operator('rollouts', 'get', id)).out).toMatch(/^health gate:\s+soak 600000 ms, at most 0 unhealthy, then pause$/m);
  const watching = operator('rollouts', 'watch', id, '--interval', '50');
  await applyConfig(agents[7]!);
  // The node falls back to another version during the soak.
  await eventually(async () => ((await hub.call('GET', `/api/v1/rollouts/${id}`)).body.gate?.state === 'soaking' ? true : undefined));
  agents[7]!.appliedConfig = 'cv_fallback';
  expect((await agents[7]!.report()).status).toBe(202);
  const watched = await watching;
  expect(watched.code).toBe(EXIT.failed);
  expect(watched.out).toMatch(/^ {2}health gate: batch 1 soaking until \S+$/m);
  expect(watched.out).toMatch(/: paused \(health_gate\)/);
  expect(watched.out).toMatch(new RegExp(`^ {2}health gate: batch 1 failed\\n {4}edge-8 version_changed: the node reports cv_fallback, not ${v} \\(since \\S+\\)$`, 'm'));
});

test('approvals: submitted by an operator, approved by an admin; a submitter never approves its own', async () => {
  // Nodes of its own: the approved rollout stays applying, and a node is in one live rollout at a time.
  for (const n of [6, 7]) expect((await operator('label', `edge-${n}`, 'tier=approved')).code).toBe(0);
  const v = await configVersion('approved: yes');
  // L3 H3: the health gate `rollouts create` takes goes through the approval request too, pinned, and is shown to the approver.
  const gate = ['--soak-ms', '600000', '--on-unhealthy', 'rollback'];
  const submitted = await operator('--json', 'approvals', 'submit', '--version', v, '--selector', 'tier=approved', '--batch-size', '2', ...gate);
  expect(submitted.code).toBe(0);
  const request = submitted.json();
  expect(request).toMatchObject({ status: 'pending', kind: 'rollout', nodes: ['edge-6', 'edge-7'], batch_size: 2, submitted_by: 'bob', rollout_id: null });
  expect(request.health).toEqual({ soak_ms: 600_000, max_unhealthy_targets: 0, on_unhealthy: 'rollback' });
  expect((await operator('approvals', 'submit', '--version', v, '--nodes', 'edge-6', '--max-unhealthy', '1')).code).toBe(EXIT.usage);
  expect((await operator('approvals', 'list', '--status', 'pending')).out).toMatch(new RegExp(`^${request.approval_id}\\s+rollout\\s+${v}\\s+pending\\s+2\\s+bob`, 'm'));

  const byOperator = await operator('approvals', 'approve', request.approval_id);
  expect(byOperator.code).toBe(EXIT.refused);
  // CLI: the hint names the role the route needs (the 403's details), not one the token may already hold.
  expect(byOperator.err).toMatch(/^forbidden: this action needs the admin role\nnext: this token's role may not do this: use an admin's token\n/);
  expect((await as(TOKENS.viewer)('drain', 'edge-2')).err).toMatch(/\nnext: this token's role may not do this: use an operator's or an admin's token\n/);
  const approved = await admin2('approvals', 'approve', request.approval_id);
  expect(approved.code).toBe(0);
  expect(approved.out).toMatch(/^status:\s+approved$/m);
  expect(approved.out).toMatch(/^health gate:\s+soak 600000 ms, at most 0 unhealthy, then rollback$/m);
  const rolloutId = (await admin('--json', 'approvals', 'list', '--status', 'approved')).json().find((a: any) => a.approval_id === request.approval_id).rollout_id;
  expect((await admin('--json', 'rollouts', 'get', rolloutId)).json()).toMatchObject({
    created_by: 'carol',
    approval_id: request.approval_id,
    health: { soak_ms: 600_000, max_unhealthy_targets: 0, on_unhealthy: 'rollback' },
  });

  const own = (await admin('--json', 'approvals', 'submit', '--kind', 'apply', '--version', v, '--nodes', 'edge-1')).json();
  const self = await admin('approvals', 'approve', own.approval_id);
  expect(self.code).toBe(EXIT.refused);
  expect(self.err).toMatch(/^self_approval_forbidden: /);
  const rejected = await admin2('--json', 'approvals', 'reject', own.approval_id, '--reason', 'not today');
  expect(rejected.json()).toMatchObject({ status: 'rejected', reason: 'not today', decided_by: 'carol' });
  const republished = await admin('--json', 'approvals', 'submit', '--kind', 'apply', '--version', v, '--nodes', 'edge-1', '--republish-from', own.approval_id);
  expect(republished.json()).toMatchObject({ status: 'pending', republished_from: own.approval_id });
});

test('the bin runs as npx runs it (node_modules/.bin on PATH) and exits with the documented codes', async () => {
  const root = join(__dirname, '../../../..');
  const bin = (args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(join(root, 'node_modules/.bin/fleetplane'), args, {
        env: { PATH: `${join(root, 'node_modules/.bin')}${delimiter}${process.env.PATH}`, FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.operator },
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      child.on('exit', (code) => resolve({ code, out, err }));
    });
  const listed = await bin(['--json', 'nodes']);
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.out).map((n: any) => n.node_id)).toEqual(['edge-1', 'edge-2', 'edge-3', 'edge-4', 'edge-5', 'edge-6', 'edge-7', 'edge-8']);
  const refused = await bin(['nodes', 'get', 'nope']);
  expect(refused).toMatchObject({ code: EXIT.refused, out: '' });
  expect(refused.err).toMatch(/^node_not_found: /);
  expect((await bin(['nodes', 'extra'])).code).toBe(EXIT.usage);
  expect((await bin(['--hub', 'http://127.0.0.1:1', 'nodes'])).code).toBe(EXIT.unreachable);
  // Four processes, each starting Node and loading the CLI: seconds apiece on a loaded machine.
}, 120_000);

test('K4 K1 streams delete marks the stream deleting; nodes retire refuses a node with live intents unless --force', async () => {
  const deleted = await operator('streams', 'delete', 'ingest');
  expect(deleted.code).toBe(0);
  expect(deleted.out).toMatch(/^deleting:\s+since .*: removed once every node reports it stopped$/m);
  expect((await operator('--json', 'streams', 'delete', 'ingest', '--if-match', '1')).err).toMatch(/^generation_conflict: /);
  const refused = await operator('nodes', 'retire', 'edge-1');
  expect(refused.code).toBe(EXIT.refused);
  expect(refused.err).toMatch(/^node_has_live_intents: /);
  const forced = await operator('--json', 'nodes', 'retire', 'edge-1', '--force');
  expect(forced.code).toBe(0);
  expect(forced.json()).toMatchObject({ node_id: 'edge-1', forced: true, retired_by: 'bob' });
  expect(forced.json().superseded_intents.length).toBeGreaterThan(0);
  // edge-7 is a target of the approved rollout above, which still applies.
  const inRollout = await operator('nodes', 'retire', 'edge-7');
  expect(inRollout.code).toBe(EXIT.refused);
  expect(inRollout.err).toMatch(/^node_in_running_rollout: /);
  const retired = await operator('nodes', 'retire', 'edge-7', '--force');
  expect(retired.out).toMatch(/^retired:\s+\S+ by bob \(forced\)$/m);
  expect(JSON.parse((await operator('--json', 'nodes')).out).map((n: any) => n.node_id)).not.toContain('edge-7');
});

test('rollouts watch waits out a Hub that restarts under it, said once on stderr, and exits 0 once the rollout converged', async () => {
  // A node of its own, registered last: the tests above count the nodes.
  const node = await TestAgent.reporting(hub, 'edge-9');
  const id = (await operator('--json', 'rollouts', 'create', '--version', await configVersion('watched through a restart'), '--nodes', 'edge-9')).json().rollout_id;
  // The watch follows a Hub of its own, which stops and starts again on its address while the rollout goes on.
  let front = await startTestHub(t.url, { config: testConfig(9, { mode: 'configuration' }) });
  const port = Number(new URL(front.url).port);
  let out = '';
  let err = '';
  const io = { out: (text: string) => void (out += text), err: (text: string) => void (err += text), env: { FLEETPLANE_HUB: front.url, FLEETPLANE_TOKEN: TOKENS.operator }, signal: new AbortController().signal };
  const watching = run(['rollouts', 'watch', id, '--interval', '20'], io);
  await eventually(async () => (out.includes(`rollout ${id}`) ? true : undefined));
  await front.stop();
  await eventually(async () => (err.includes('; polling again every 20 ms (Ctrl-C stops)') ? true : undefined));
  front = await startTestHub(t.url, { config: testConfig(9, { mode: 'configuration' }), port });
  try {
    await applyConfig(node);
    expect(await watching).toBe(EXIT.ok);
  } finally {
    await front.stop();
  }
  expect(err.split('\n').filter((line) => line.includes('polling again'))).toHaveLength(1);
  expect(err).toMatch(new RegExp(`reconnected to the Hub at ${front.url}\n$`));
  expect(out).toMatch(/: converged, batch 1\/1$/m);
});
