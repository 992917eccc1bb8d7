import { sql } from 'kysely';
import { fleetplane } from '../../../../test/support/cli.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import { EXIT } from './exit.ts';

// `rollouts get` and `rollouts watch` on a rollout of 600 targets read what they print: the summary (the targets
// counted by batch) and a page of at most 20 targets for each list, never every target; `rollouts targets`
// pages the rest.

const suite = hubSuite({ config: testConfig(2, { mode: 'configuration' }) });
const operator = (...args: string[]) => fleetplane(args, { FLEETPLANE_HUB: suite.hub.url, FLEETPLANE_TOKEN: TOKENS.operator });
const ID = 'ro_wide';

/** What a run of the CLI asked the Hub for: each request's path and query, and how many targets its answer held. */
async function recorded<T>(work: () => Promise<T>): Promise<{ result: T; requests: Array<{ path: string; targets: number }> }> {
  const requests: Array<{ path: string; targets: number }> = [];
  const real = globalThis.fetch;
  const spy = jest.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const res = await real(input, init);
    const body = (await res.clone().json()) as { items?: unknown[]; targets?: unknown[] };
    const url = new URL(String(input));
    requests.push({ path: `${url.pathname}${url.search}`, targets: (body.items ?? body.targets ?? []).length });
    return res;
  });
  try {
    return { result: await work(), requests };
  } finally {
    spy.mockRestore();
  }
}

const BARS = [
  /^ {2}batch 1 \[#{17}-{3}\] 219\/256 converged$/m,
  /^ {2}batch 2 \[-{20}\] 0\/256 converged$/m,
  /^ {2}batch 3 \[-{20}\] 0\/88 converged$/m,
];

/** The progress of the rollout: every bar, 20 failed targets and how many more, 20 of those holding it and that more do. */
function expectProgress(out: string): void {
  expect(out).toMatch(/^rollout ro_wide → cv_wide: paused \(target_failed\), recovery restoring, batch 2\/3$/m);
  for (const bar of BARS) expect(out).toMatch(bar);
  const failed = out.split('\n').filter((l) => l.startsWith('  failed: '));
  expect(failed).toHaveLength(20);
  expect(failed[0]).toBe('  failed: node-003 permanent invalid_config: parse error');
  expect(out).toContain('\n  … and 17 more failed (fleetplane rollouts targets ro_wide --state failed)\n');
  expect(out.split('\n').filter((l) => l.startsWith('  recovery hold: '))).toHaveLength(20);
  expect(out).toContain('\n  recovery hold: node-005 restore in flight\n');
  expect(out).toContain('\n  … and more holding the rollout (fleetplane rollouts targets ro_wide --recovery holding)\n');
  expect(out).toContain('\n  … and 236 more applying (fleetplane rollouts targets ro_wide --state applying)\n');
  expect(out).toMatch(/^ {2}batch 3 waits on rollout_paused: /m);
}

// Inside a block: its rows are deleted before the suite's Hub stops and its log is verified.
describe('a rollout of 600 targets', () => {
  /**
   * 600 targets in batches of 256, written into the tables (as rollout-targets.test.ts writes its 10,000), paused
   * by its failures: batch 1 converged but for 37 failed (every 7th from node-003), 25 of its converged ones
   * restoring; batch 2 applying; batch 3 waiting.
   */
  beforeAll(async () => {
    const db = suite.t.db;
    await sql`
      INSERT INTO rollouts (rollout_id, kind, config_version, state, paused_reason, batch_size, batches, current_batch, created_by, correlation_id, created_at, updated_at,
                            targets_waiting, targets_applying, targets_converged, targets_failed)
      VALUES (${ID}, 'rollout', 'cv_wide', 'paused', 'target_failed', 256, 3, 1, 'bob', 'corr-wide', now(), now(), 88, 256, 219, 37)`.execute(db);
    await sql`
      INSERT INTO rollout_targets (rollout_id, node_id, batch, state, failure_class, failure_code, failure_message, recovery_phase, updated_at)
      SELECT ${ID}, 'node-' || lpad(i::text, 3, '0'), i / 256,
        CASE WHEN i >= 512 THEN 'waiting' WHEN i >= 256 THEN 'applying' WHEN i % 7 = 3 THEN 'failed' ELSE 'converged' END,
        CASE WHEN i < 256 AND i % 7 = 3 THEN 'permanent' END, CASE WHEN i < 256 AND i % 7 = 3 THEN 'invalid_config' END,
        CASE WHEN i < 256 AND i % 7 = 3 THEN 'parse error' END,
        CASE WHEN i < 175 AND i % 7 = 5 THEN 'restoring' END,
        now()
      FROM generate_series(0, 599) i`.execute(db);
  });

  afterAll(async () => {
    // Rows no event wrote: the log would not verify with them.
    await sql`DELETE FROM rollout_targets WHERE rollout_id = ${ID}`.execute(suite.t.db);
    await sql`DELETE FROM rollouts WHERE rollout_id = ${ID}`.execute(suite.t.db);
  });

  test('G5 rollouts watch on a rollout of 600 targets shows a bar per batch and at most 20 of each list, reading only those targets', async () => {
    const { result: watched, requests } = await recorded(() => operator('rollouts', 'watch', ID, '--interval', '50'));
    // A paused rollout: read once, shown, and the watch ends.
    expect(watched.code).toBe(EXIT.failed);
    expectProgress(watched.out);
    // The summary, then a page of 20 failed, holding and applying targets and the first waiting one: never the whole rollout.
    expect(requests.map((r) => r.path).sort()).toEqual([
      `/api/v1/rollouts/${ID}/summary`,
      `/api/v1/rollouts/${ID}/targets?recovery=holding&limit=20`,
      `/api/v1/rollouts/${ID}/targets?state=applying&limit=20`,
      `/api/v1/rollouts/${ID}/targets?state=failed&limit=20`,
      `/api/v1/rollouts/${ID}/targets?state=waiting&limit=1`,
    ]);
    // 61 targets sent of 600: each page reads its own rows by index, the counts by batch an index (rollout-targets.test.ts).
    expect(requests.reduce((n, r) => n + r.targets, 0)).toBe(61);
  });

  test('G5 rollouts watch --json prints the summary, its targets counted by batch, and reads no target', async () => {
    const { result: watched, requests } = await recorded(() => operator('--json', 'rollouts', 'watch', ID));
    expect(watched.code).toBe(EXIT.failed);
    const [summary] = watched.lines();
    expect(summary).not.toHaveProperty('targets');
    expect(summary).toMatchObject({ rollout_id: ID, state: 'paused', target_counts: { waiting: 88, applying: 256, converged: 219, failed: 37, cancelled: 0 } });
    expect(summary.batch_counts).toEqual([
      { waiting: 0, applying: 0, converged: 219, failed: 37, cancelled: 0 },
      { waiting: 0, applying: 256, converged: 0, failed: 0, cancelled: 0 },
      { waiting: 88, applying: 0, converged: 0, failed: 0, cancelled: 0 },
    ]);
    expect(requests).toEqual([{ path: `/api/v1/rollouts/${ID}/summary`, targets: 0 }]);
  });

  test('G5 rollouts get shows the first 20 targets and how many more, and the progress; --json is every target, --summary none', async () => {
    const { result: got, requests } = await recorded(() => operator('rollouts', 'get', ID));
    expect(got.code).toBe(EXIT.ok);
    expect(got.out).toMatch(/^batch:\s+2 of 3 \(256 per batch\)$/m);
    expect(got.out).toMatch(/^node-000\s+1\s+converged\s/m);
    expect(got.out).toMatch(/^node-019\s+1\s+converged\s/m);
    expect(got.out).not.toMatch(/^node-020\s/m);
    expect(got.out).toContain('\n… and 580 more targets (fleetplane rollouts targets ro_wide)\n');
    expectProgress(got.out);
    expect(requests.some((r) => r.path === `/api/v1/rollouts/${ID}`)).toBe(false);
    expect(requests.reduce((n, r) => n + r.targets, 0)).toBe(81);

    const whole = await operator('--json', 'rollouts', 'get', ID);
    expect(whole.json().targets).toHaveLength(600);
    const summary = await recorded(() => operator('--json', 'rollouts', 'get', ID, '--summary'));
    expect(summary.result.json()).toMatchObject({ rollout_id: ID, batch_counts: [{ failed: 37 }, { applying: 256 }, { waiting: 88 }] });
    expect(summary.requests).toEqual([{ path: `/api/v1/rollouts/${ID}/summary`, targets: 0 }]);
    const noTable = await operator('rollouts', 'get', ID, '--summary');
    expect(noTable.out).not.toMatch(/^NODE\s/m);
    expectProgress(noTable.out);
  });

  test('G5 rollouts targets pages the targets with a cursor, filtered by state, batch (from 1) or recovery hold', async () => {
    const first = await operator('rollouts', 'targets', ID, '--state', 'failed', '--limit', '30');
    expect(first.code).toBe(EXIT.ok);
    const rows = (out: string) => out.split('\n').filter((l) => l.startsWith('node-'));
    expect(rows(first.out)).toHaveLength(30);
    expect(rows(first.out)[0]).toMatch(/^node-003\s+1\s+failed\s+-\s+-\s+-\s+permanent invalid_config\s+-$/);
    const cursor = /^more: --cursor '(.+)'\n$/.exec(first.err)![1]!;
    const rest = await operator('--json', 'rollouts', 'targets', ID, '--state', 'failed', '--limit', '30', '--cursor', cursor);
    expect(rest.lines()).toHaveLength(7);
    expect(rest.err).toBe('');
    expect([...rows(first.out).map((l) => l.split(' ')[0]), ...rest.lines().map((t) => t.node_id)]).toEqual(
      Array.from({ length: 37 }, (_, i) => `node-${String(3 + 7 * i).padStart(3, '0')}`),
    );
    const all = await operator('--json', 'rollouts', 'targets', ID, '--batch', '3', '--all');
    expect(all.lines().map((t) => [t.batch, t.state])).toEqual(Array(88).fill([2, 'waiting']));
    const holding = await operator('--json', 'rollouts', 'targets', ID, '--recovery', 'holding', '--all', '--limit', '10');
    expect(holding.lines()).toHaveLength(25);
    for (const args of [['--state', 'stuck'], ['--batch', '0'], ['--recovery', 'held'], ['--limit', '101']]) {
      const r = await operator('rollouts', 'targets', ID, ...args);
      expect([args, r.code]).toEqual([args, EXIT.usage]);
    }
    expect((await operator('rollouts', 'targets', 'ro_nope')).err).toMatch(/^rollout_not_found: /);
  });
});
