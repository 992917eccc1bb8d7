import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetplane } from '../../../../test/support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import { EXIT } from './exit.ts';

// Text the Hub stores from an agent (a node may be compromised) or another operator reaches an operator's
// terminal through the CLI. A terminal acts on control characters: ESC sequences retitle the window, write
// the clipboard (OSC 52), clear the screen or move the cursor to overwrite lines; a newline forges a line.
// The CLI's human output shows every such character escaped; --json keeps the values exact.

let t: TestDatabase;
let hub: TestHub;
let dir: string;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(2, { mode: 'configuration' }) });
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-hostile-cli-'));
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
  await rm(dir, { recursive: true, force: true });
});

const operator = (...args: string[]) => fleetplane(args, { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.operator });

// ESC (OSC 52: write the clipboard), BEL, CR, a newline forging a line, DEL, C1 CSI (U+009B), a bidi override.
const HOSTILE = 'x\u001b]52;c;ZWNobyBwd25lZA==\u0007\r\nstatus: approved\u007f\u009b2J\u202e';
/** HOSTILE as the terminal shows it. */
const ESCAPED = String.raw`x\u001b]52;c;ZWNobyBwd25lZA==\u0007\u000d\u000astatus: approved\u007f\u009b2J\u202e`;

/** The value of a `field: value` line. */
const field = (out: string, name: string) => out.split('\n').find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim();

/** No character a terminal acts on, beyond the line ends the CLI writes itself. */
const inert = (text: string) => expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\nstatus: approved/);

test("text a node reports (capabilities, data address, boot id, a failure's message) reaches the terminal escaped, never raw", async () => {
  const agent = new TestAgent(hub, 'edge-1', `boot${HOSTILE}`);
  expect((await agent.register({ capabilities: [`cap${HOSTILE}`], data_address: `addr${HOSTILE}` })).status).toBe(200);
  expect((await agent.report()).status).toBe(202);

  const shown = await operator('nodes', 'get', 'edge-1');
  expect(shown.code).toBe(EXIT.ok);
  inert(shown.out);
  expect(['capabilities', 'data address', 'boot id'].map((name) => field(shown.out, name))).toEqual([`cap${ESCAPED}`, `addr${ESCAPED}`, `boot${ESCAPED}`]);
  // Machine output keeps the exact text.
  expect((await operator('--json', 'nodes', 'get', 'edge-1')).json().capabilities).toEqual([`cap${HOSTILE}`]);

  const file = join(dir, 'v.yaml');
  await writeFile(file, 'a: 1');
  const v = (await operator('--json', 'config', 'create', '--file', file, '--format', 'yaml')).json().config_version;
  const id = (await operator('--json', 'rollouts', 'create', '--version', v, '--nodes', 'edge-1')).json().rollout_id;
  const [attempt] = await takeConfigAttempts(agent);
  const failed = { outcome: 'failed', generation: attempt.generation, failure_class: 'permanent', code: 'invalid_config', message: `message${HOSTILE}` };
  expect((await agent.result(attempt.attempt_id, failed)).status).toBe(200);
  // The watch ends once the failure paused the rollout.
  for (const args of [['rollouts', 'watch', id, '--interval', '50'], ['rollouts', 'get', id]]) {
    const r = await operator(...args);
    inert(r.out);
    inert(r.err);
    expect(r.out).toContain(`failed: edge-1 permanent invalid_config: message${ESCAPED}\n`);
  }
});

test("an operator's reason for a rejection reaches another operator's terminal escaped", async () => {
  expect((await TestAgent.reporting(hub, 'edge-2')).nodeId).toBe('edge-2');
  const file = join(dir, 'w.yaml');
  await writeFile(file, 'b: 2');
  const v = (await operator('--json', 'config', 'create', '--file', file, '--format', 'yaml')).json().config_version;
  const submitted = await operator('--json', 'approvals', 'submit', '--version', v, '--nodes', 'edge-2');
  expect(submitted.code).toBe(EXIT.ok);
  const id = submitted.json().approval_id;
  const admin = (...args: string[]) => fleetplane(args, { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.admin });
  const rejected = await admin('approvals', 'reject', id, '--reason', HOSTILE);
  expect(rejected.code).toBe(EXIT.ok);
  inert(rejected.out);
  expect(field(rejected.out, 'reason')).toBe(ESCAPED);
});

test('a configuration version shown by config get has its control characters escaped, line by line; --content prints it exact', async () => {
  // Its line ends are the content's own: a line of it, without one.
  const line = HOSTILE.replace('\n', '');
  const file = join(dir, 'hostile.txt');
  await writeFile(file, `first line\n${line}\n`);
  const v = (await operator('--json', 'config', 'create', '--file', file, '--format', 'text')).json().config_version;
  const shown = await operator('config', 'get', v);
  inert(shown.out);
  expect(shown.out).toMatch(/\nfirst line\n/);
  expect(shown.out.endsWith(`\n${ESCAPED.replace(String.raw`\u000a`, '')}\n`)).toBe(true);
  expect((await operator('config', 'get', v, '--content')).out).toBe(`first line\n${line}\n`);
});
