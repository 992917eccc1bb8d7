import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetplane } from '../../../../test/support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import { EXIT } from './exit.ts';

// Issue 22 item 5: `fleetplane drift` and `fleetplane config get`, against a real Hub and database.

const STALE_AFTER_MS = 30_000;
let t: TestDatabase;
let hub: TestHub;
let dir: string;
/** The Hub's clock runs with real time, shifted by `skew`: a test moves it forward to age nodes. */
let skew = 0;
const agents: TestAgent[] = [];
beforeAll(async () => {
  t = await createTestDatabase();
  // observe: nothing is dispatched, so what the nodes report is exactly what the test makes them report.
  hub = await startTestHub(t.url, { config: testConfig(3, { mode: 'observe', stale_after_ms: STALE_AFTER_MS }), clock: { now: () => new Date(Date.now() + skew) } });
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-cli-'));
  for (const n of [1, 2, 3]) agents.push(await TestAgent.reporting(hub, `edge-${n}`));
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
  await rm(dir, { recursive: true, force: true });
});

const operator = (...args: string[]) => fleetplane(args, { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.operator });
const viewer = (...args: string[]) => fleetplane(args, { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.viewer });

async function configVersion(content: string): Promise<{ config_version: string; digest: string }> {
  const file = join(dir, 'content');
  await writeFile(file, content);
  const created = await operator('--json', 'config', 'create', '--file', file, '--format', 'yaml');
  expect(created.code).toBe(EXIT.ok);
  return created.json();
}

test('issue 22: drift shows desired against observed per node and stream, exits 1 while anything differs and 0 once nothing does', async () => {
  const [edge1, edge2] = agents as [TestAgent, TestAgent];
  const none = await viewer('drift');
  expect(none).toMatchObject({ code: EXIT.ok, out: 'no drift: every node reports what is desired\n', err: '' });

  const body = { desired_state: 'running', spec: { command: 'sleep', args: ['60'] }, placement: { nodes: ['edge-1', 'edge-2'] } };
  expect((await hub.call('PUT', '/api/v1/streams/ingest', { token: TOKENS.operator, body })).status).toBe(200);
  expect((await hub.call('PUT', '/api/v1/streams/ingest', { token: TOKENS.operator, body: { ...body, spec: { command: 'sleep', args: ['90'] } } })).status).toBe(200);
  // edge-1 runs the first generation; edge-2 reports nothing of the stream.
  edge1.streams.set('ingest', { stream_id: 'ingest', generation: 1, state: 'running' });
  expect((await edge1.report()).status).toBe(202);

  const drift = await viewer('drift');
  expect(drift.code).toBe(EXIT.failed);
  const lines = drift.out.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^NODE\s+STREAM\s+KIND\s+DESIRED\s+OBSERVED\s+LAST SEEN$/);
  expect(lines.slice(1)).toEqual([
    expect.stringMatching(/^edge-1\s+ingest\s+generation_mismatch\s+running @ gen 2\s+running @ gen 1\s+\d{4}-\d\d-\d\dT/),
    expect.stringMatching(/^edge-2\s+ingest\s+generation_mismatch\s+running @ gen 2\s+not reported\s+\d{4}-/),
  ]);
  // Filters, and --json: the rows as the Hub answers them.
  const one = await viewer('--json', 'drift', '--node', 'edge-2');
  expect(one.code).toBe(EXIT.failed);
  expect(one.json()).toEqual([
    expect.objectContaining({ node_id: 'edge-2', stream_id: 'ingest', kind: 'generation_mismatch', desired_generation: 2, desired_state: 'running', observed_generation: null }),
  ]);
  // CLI: a node or stream that does not exist is said, not shown as one without drift.
  const noNode = await viewer('drift', '--node', 'nosuch');
  expect(noNode).toMatchObject({ code: EXIT.refused, out: '' });
  expect(noNode.err).toMatch(/^node_not_found: node nosuch is not registered\nnext: `fleetplane nodes` lists the nodes\n/);
  const noStream = await viewer('drift', '--stream', 'other');
  expect(noStream).toMatchObject({ code: EXIT.refused, out: '' });
  expect(noStream.err).toMatch(/^stream_not_found: .*\nnext: `fleetplane streams list` lists the streams\n/);

  // A node the Hub wants on another configuration version, and a node that stopped reporting.
  const v = await configVersion('listen: 8080\n');
  expect((await hub.call('POST', '/api/v1/nodes/edge-3/configuration/apply', { token: TOKENS.operator, body: { config_version: v.config_version } })).status).toBe(201);
  skew += STALE_AFTER_MS + 1_000;
  for (const a of [edge1, edge2]) expect((await a.report()).status).toBe(202);
  const more = await viewer('drift', '--node', 'edge-3');
  expect(more.code).toBe(EXIT.failed);
  expect(more.out.trimEnd().split('\n').slice(1)).toEqual([
    expect.stringMatching(new RegExp(`^edge-3\\s+-\\s+config_drift\\s+${v.config_version}\\s+none applied\\s+\\d{4}-`)),
    expect.stringMatching(/^edge-3\s+-\s+stale_node\s+-\s+no report for too long\s+\d{4}-/),
  ]);

  // Once every placement node reports the desired generation and state, the stream has no drift left.
  for (const a of [edge1, edge2]) {
    a.streams.set('ingest', { stream_id: 'ingest', generation: 2, state: 'running' });
    expect((await a.report()).status).toBe(202);
  }
  expect(await viewer('drift', '--stream', 'ingest')).toMatchObject({ code: EXIT.ok, out: 'no drift: every node reports what is desired\n' });
  expect((await viewer('drift', 'extra')).code).toBe(EXIT.usage);
});

test('restored backup: drift shows a stream a node runs that the Hub holds no desired state for, as such', async () => {
  const edge2 = agents[1]!;
  edge2.streams.set('orphan', { stream_id: 'orphan', generation: 3, state: 'running' });
  expect((await edge2.report()).status).toBe(202);
  const drift = await viewer('drift', '--node', 'edge-2');
  expect(drift.code).toBe(EXIT.failed);
  expect(drift.out.trimEnd().split('\n').slice(1)).toEqual([expect.stringMatching(/^edge-2\s+orphan\s+generation_mismatch\s+no desired state\s+running @ gen 3\s+\d{4}-/)]);
  edge2.streams.delete('orphan');
  expect((await edge2.report()).status).toBe(202);
});

test('issue 22: config get prints a version by its id or its digest, with --content the content alone as stored', async () => {
  const content = 'listen: 9090\nworkers: 4';
  const v = await configVersion(content);
  const shown = await viewer('config', 'get', v.config_version);
  expect(shown.code).toBe(EXIT.ok);
  expect(shown.out).toMatch(new RegExp(`^config version: +${v.config_version}\nformat: +yaml\ndigest: +${v.digest}\nparent: +-\ncreated by: +bob\ncreated at: +\\S+\ncorrelation id: +\\S+\n\n${content}\n$`));
  expect((await viewer('config', 'get', v.config_version, '--content')).out).toBe(content);
  expect((await viewer('--json', 'config', 'get', v.config_version)).json()).toMatchObject({ config_version: v.config_version, content, digest: v.digest });

  // `config list` shows a digest's first 12 hex digits: that names the version too, as does the whole digest.
  const listed = (await viewer('config', 'list')).out;
  const short = v.digest.slice(0, 19);
  expect(listed).toContain(short);
  expect((await viewer('--json', 'config', 'get', short)).json().config_version).toBe(v.config_version);
  expect((await viewer('--json', 'config', 'get', v.digest)).json().config_version).toBe(v.config_version);

  const missing = await viewer('config', 'get', 'cv_missing');
  expect(missing).toMatchObject({ code: EXIT.refused, out: '' });
  expect(missing.err).toMatch(/^config_version_not_found: .*\nnext: `fleetplane config list` lists the versions/);
  // CLI: a digest no version has is the same miss as an unknown id: the same code and exit code.
  const noDigest = await viewer('config', 'get', `sha256:${v.digest.startsWith('sha256:0') ? 'f' : '0'}000`);
  expect(noDigest).toMatchObject({ code: EXIT.refused, out: '' });
  expect(noDigest.err).toMatch(/^config_version_not_found: no configuration version has a digest starting sha256:[0f]000\nnext: `fleetplane config list` lists the versions/);
  // Two versions whose digests start alike: the start they share is not enough. (17 versions hold two whose
  // digests share a first hex digit; they are found well before.)
  const firsts = new Map<string, string>([[v.digest.slice(0, 8), v.config_version]]);
  let shared: string | undefined;
  for (let i = 0; shared === undefined; i++) {
    const other = await configVersion(`other: ${i}`);
    if (firsts.has(other.digest.slice(0, 8))) shared = other.digest.slice(0, 8);
    else firsts.set(other.digest.slice(0, 8), other.config_version);
  }
  const ambiguous = await viewer('config', 'get', shared);
  expect(ambiguous.code).toBe(EXIT.usage);
  expect(ambiguous.err).toMatch(new RegExp(`^${shared} starts the digest of 2 versions \\(.*${firsts.get(shared)}.*\\): give more of it, or a version id\n`));
  expect((await viewer('config', 'get')).code).toBe(EXIT.usage);
});
