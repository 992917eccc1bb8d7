import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttemptCommand } from './executor.ts';
import { createProcessExecutor, type ProcessExecutor, type ProcessExecutorOptions } from './process.ts';

const RUNNING = { status: 'running', exit_code: null, restarts: 0 } as const;

// The process executor against real child processes (node -e …), one temp state dir per test.
const LONG = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
const IGNORES_TERM = { command: process.execPath, args: ['-e', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"] };

let seq = 0;
function command(operation: AttemptCommand['operation'], generation: number, extra: Partial<AttemptCommand> = {}): AttemptCommand {
  seq += 1;
  return {
    attempt_id: `at_${seq}`,
    intent_id: `in_${seq}`,
    operation,
    stream_id: 'ingest',
    generation,
    spec: operation.startsWith('job_') ? LONG : {},
    action_id: null,
    config_version: null,
    flags: {},
    ...extra,
  };
}

async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

let stateDir: string;
let executors: ProcessExecutor[];
const spawned = new Set<number>();

function open(options: Partial<ProcessExecutorOptions> = {}): ProcessExecutor {
  const executor = createProcessExecutor({ stateDir, stopGraceMs: 2000, adoptedPollMs: 50, ...options });
  executors.push(executor);
  return executor;
}
async function observed(executor: ProcessExecutor, streamId = 'ingest') {
  return (await executor.observe()).find((s) => s.stream_id === streamId);
}
function pidOf(executor: ProcessExecutor, streamId = 'ingest'): number {
  const pid = executor.pid(streamId);
  if (pid === null) throw new Error(`${streamId} has no live pid`);
  spawned.add(pid);
  return pid;
}

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'fleetplane-process-'));
  executors = [];
  spawned.clear();
});
afterEach(async () => {
  for (const executor of executors) {
    await executor.stopAll();
    await executor.close();
  }
  for (const pid of spawned) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  await rm(stateDir, { recursive: true, force: true });
});

describe('lifecycle', () => {
  it('starts a child from the spec and reports it running at the attempt generation', async () => {
    const executor = open();
    expect(await executor.apply(command('job_start', 3))).toEqual({ outcome: 'succeeded', failure_class: null, code: null, message: null, mutation: null });
    const pid = pidOf(executor);
    expect(alive(pid)).toBe(true);
    expect(await executor.observe()).toEqual([{ stream_id: 'ingest', generation: 3, state: 'running', last_action_id: null, error: null, health: RUNNING }]);
    const saved = JSON.parse(readFileSync(join(stateDir, 'streams', 'ingest', 'state.json'), 'utf8'));
    expect(saved).toMatchObject({ stream_id: 'ingest', generation: 3, desired: 'running', pid });
  });

  it('E3 passes a split placement\'s share to the child: FLEETPLANE_PLACEMENT_INDEX, _COUNT and FLEETPLANE_PEERS', async () => {
    const executor = open();
    const peers = [{ node_id: 'edge-1', data_address: '127.0.0.1:7001' }, { node_id: 'edge-2', data_address: '127.0.0.1:7002' }];
    const print = "const e = process.env; console.log('share ' + e.FLEETPLANE_PLACEMENT_INDEX + '/' + e.FLEETPLANE_PLACEMENT_COUNT + ' ' + e.FLEETPLANE_PEERS); setInterval(() => {}, 1000)";
    await executor.apply(command('job_start', 1, { spec: { command: process.execPath, args: ['-e', print] }, placement: { index: 1, count: 2, peers } }));
    pidOf(executor);
    const log = await waitFor(() => {
      const path = join(stateDir, 'streams', 'ingest', 'output.log');
      const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
      return text.includes('share 1') ? text : undefined;
    });
    expect(log).toContain(`share 1/2 ${JSON.stringify(peers)}`);
  });

  it('runs the child in its stream dir with spec.env and appends its output to the log', async () => {
    const executor = open();
    const spec = { command: process.execPath, args: ['-e', "console.log('hello ' + process.env.GREETING + ' in ' + process.cwd()); setInterval(() => {}, 1000)"], env: { GREETING: 'fleet' } };
    await executor.apply(command('job_start', 1, { spec }));
    pidOf(executor);
    const dir = join(stateDir, 'streams', 'ingest');
    const log = await waitFor(() => {
      const text = existsSync(join(dir, 'output.log')) ? readFileSync(join(dir, 'output.log'), 'utf8') : '';
      return text.includes('hello fleet') ? text : undefined;
    });
    expect(log).toContain(`hello fleet in ${dir}`);
  });

  it('is idempotent: a repeated start keeps the same child; a newer generation replaces it', async () => {
    const executor = open();
    await executor.apply(command('job_start', 1));
    const first = pidOf(executor);
    expect((await executor.apply(command('job_start', 1))).outcome).toBe('succeeded');
    expect(pidOf(executor)).toBe(first);

    expect((await executor.apply(command('job_start', 2))).outcome).toBe('succeeded');
    const second = pidOf(executor);
    expect(second).not.toBe(first);
    expect(alive(first)).toBe(false);
    expect(await observed(executor)).toMatchObject({ generation: 2, state: 'running' });
  });

  it('refuses an attempt older than the generation it applied, as stale', async () => {
    const executor = open();
    await executor.apply(command('job_start', 5));
    const pid = pidOf(executor);
    expect(await executor.apply(command('job_stop', 4))).toMatchObject({ outcome: 'failed', failure_class: 'stale_generation', code: 'stale_generation' });
    expect(executor.pid('ingest')).toBe(pid);
    expect(await observed(executor)).toMatchObject({ generation: 5, state: 'running' });
  });

  it('stops with SIGTERM, idempotently', async () => {
    const executor = open();
    await executor.apply(command('job_start', 1));
    const pid = pidOf(executor);
    expect((await executor.apply(command('job_stop', 2))).outcome).toBe('succeeded');
    expect(alive(pid)).toBe(false);
    expect(await observed(executor)).toEqual({ stream_id: 'ingest', generation: 2, state: 'stopped', last_action_id: null, error: null });
    expect((await executor.apply(command('job_stop', 2))).outcome).toBe('succeeded');
    expect(await observed(executor)).toMatchObject({ generation: 2, state: 'stopped' });
  });

  it('escalates to SIGKILL when the child ignores SIGTERM past the grace period', async () => {
    const executor = open({ stopGraceMs: 300 });
    await executor.apply(command('job_start', 1, { spec: IGNORES_TERM }));
    const pid = pidOf(executor);
    await waitFor(() => (/^ready$/m.test(readFileSync(join(stateDir, 'streams', 'ingest', 'output.log'), 'utf8')) ? true : undefined));
    expect((await executor.apply(command('job_stop', 2))).outcome).toBe('succeeded');
    expect(alive(pid)).toBe(false);
    expect(await observed(executor)).toMatchObject({ state: 'stopped' });
  });

  it('A9 while a newer generation replaces the old process, the old one is reported starting, never as the new generation running', async () => {
    const executor = open({ stopGraceMs: 1000 });
    await executor.apply(command('job_start', 1, { spec: IGNORES_TERM }));
    pidOf(executor);
    const log = () => readFileSync(join(stateDir, 'streams', 'ingest', 'output.log'), 'utf8');
    // Its own output line, not the command line the log records before starting it.
    await waitFor(() => (/^ready$/m.test(log()) ? true : undefined));
    const replacing = executor.apply(command('job_start', 2));
    // Generation 1 ignores SIGTERM: it lives on through the grace period.
    await waitFor(() => (log().includes('stopping pid') ? true : undefined));
    expect(await observed(executor)).toMatchObject({ generation: 2, state: 'starting' });
    expect((await replacing).outcome).toBe('succeeded');
    pidOf(executor);
    expect(await observed(executor)).toMatchObject({ generation: 2, state: 'running' });
  });

  it('a stop for a stream it never ran reports it stopped at that generation', async () => {
    const executor = open();
    expect((await executor.apply(command('job_stop', 7, { stream_id: 'fresh' }))).outcome).toBe('succeeded');
    expect(await observed(executor, 'fresh')).toEqual({ stream_id: 'fresh', generation: 7, state: 'stopped', last_action_id: null, error: null });
  });

  it('a restart gives a new pid and records the action id, once', async () => {
    const executor = open();
    await executor.apply(command('job_start', 1));
    const before = pidOf(executor);
    expect((await executor.apply(command('job_restart', 2, { action_id: 'act_1' }))).outcome).toBe('succeeded');
    const after = pidOf(executor);
    expect(after).not.toBe(before);
    expect(alive(before)).toBe(false);
    expect(await observed(executor)).toEqual({ stream_id: 'ingest', generation: 2, state: 'running', last_action_id: 'act_1', error: null, health: RUNNING });

    // The same restart again (a repeated attempt) does not restart a second time.
    expect((await executor.apply(command('job_restart', 2, { action_id: 'act_1' }))).outcome).toBe('succeeded');
    expect(pidOf(executor)).toBe(after);
  });

  it('a restart without a spec reruns the last one', async () => {
    const executor = open();
    await executor.apply(command('job_start', 1));
    const before = pidOf(executor);
    expect((await executor.apply(command('job_restart', 2, { action_id: 'act_2', spec: {} }))).outcome).toBe('succeeded');
    expect(pidOf(executor)).not.toBe(before);
    expect(await observed(executor)).toMatchObject({ generation: 2, state: 'running', last_action_id: 'act_2' });
  });
});

describe('a child exiting on its own', () => {
  it('exit code 1 while desired running → failed with the code, and onChange fires', async () => {
    const executor = open();
    let changes = 0;
    executor.onChange(() => {
      changes += 1;
    });
    await executor.apply(command('job_start', 1, { spec: { command: process.execPath, args: ['-e', 'setTimeout(() => process.exit(1), 100)'] } }));
    await waitFor(() => (changes > 0 ? true : undefined));
    expect(await observed(executor)).toEqual({ stream_id: 'ingest', generation: 1, state: 'failed', last_action_id: null, error: 'exited with code 1', health: { status: 'exited', exit_code: 1, restarts: 0 } });
  });

  it('L1 health: a stream that exited on its own reports its exit code; started again, it counts a restart within the window', async () => {
    const executor = open();
    let changes = 0;
    executor.onChange(() => {
      changes += 1;
    });
    await executor.apply(command('job_start', 1, { spec: { command: process.execPath, args: ['-e', 'setTimeout(() => process.exit(3), 100)'] } }));
    await waitFor(() => (changes > 0 ? true : undefined));
    expect((await observed(executor))?.health).toEqual({ status: 'exited', exit_code: 3, restarts: 0 });
    await executor.apply(command('job_start', 2));
    expect((await observed(executor))?.health).toEqual({ status: 'running', exit_code: null, restarts: 1 });
    // A start that follows no exit on its own (a new generation of a running stream) is no restart.
    await executor.apply(command('job_start', 3));
    expect((await observed(executor))?.health).toEqual({ status: 'running', exit_code: null, restarts: 1 });
    // Out of the window, the restart no longer counts; the state dir keeps it across an agent restart.
    await executor.close();
    expect((await observed(open()))?.health).toEqual({ status: 'running', exit_code: null, restarts: 1 });
    expect((await observed(open({ healthWindowMs: 1 })))?.health).toEqual({ status: 'running', exit_code: null, restarts: 0 });
  });

  it('L1 health: a restart stamped ahead of the clock (the clock was stepped back since) counts for one window, not until the clock catches up', async () => {
    const first = open();
    await first.apply(command('job_start', 1));
    pidOf(first);
    await first.close();
    // Restarted while the node's clock ran a year ahead; then NTP stepped it back.
    const state = join(stateDir, 'streams', 'ingest', 'state.json');
    writeFileSync(state, JSON.stringify({ ...JSON.parse(readFileSync(state, 'utf8')), restarts_at: [Date.now() + 365 * 24 * 3600 * 1000] }));
    const executor = open({ healthWindowMs: 200 });
    expect((await observed(executor))?.health).toEqual({ status: 'running', exit_code: null, restarts: 1 });
    const counted = Date.now();
    await waitFor(() => (Date.now() > counted + 200 ? true : undefined));
    expect((await observed(executor))?.health).toEqual({ status: 'running', exit_code: null, restarts: 0 });
  });

  it('L1 health: a stream desired stopped reports none', async () => {
    const executor = open();
    await executor.apply(command('job_start', 1));
    await executor.apply(command('job_stop', 2));
    expect((await observed(executor))?.health).toBeUndefined();
  });

  it('exit code 0 while desired running → stopped, not failed', async () => {
    const executor = open();
    let changes = 0;
    executor.onChange(() => {
      changes += 1;
    });
    await executor.apply(command('job_start', 1, { spec: { command: process.execPath, args: ['-e', '0'] } }));
    await waitFor(() => (changes > 0 ? true : undefined));
    expect(await observed(executor)).toMatchObject({ state: 'stopped', generation: 1 });
  });

  it('an exit whose state cannot be written (the stream dir gone) does not bring the agent down; it is still reported', async () => {
    const executor = open();
    let changes = 0;
    executor.onChange(() => {
      changes += 1;
    });
    await executor.apply(command('job_start', 1, { spec: { command: process.execPath, args: ['-e', 'setTimeout(() => process.exit(1), 300)'] } }));
    // A file where the stream's directory was: the exit's state write fails.
    const dir = join(stateDir, 'streams', 'ingest');
    await rm(dir, { recursive: true, force: true });
    writeFileSync(dir, 'not a directory');
    await waitFor(() => (changes > 0 ? true : undefined));
    expect(await observed(executor)).toMatchObject({ state: 'failed', error: 'exited with code 1' });
    await rm(dir, { force: true });
  });

  it('a start after a failed exit starts it again at the same generation', async () => {
    const executor = open();
    await executor.apply(command('job_start', 1, { spec: { command: process.execPath, args: ['-e', 'process.exit(3)'] } }));
    await waitFor(async () => ((await observed(executor))?.state === 'failed' ? true : undefined));
    expect((await executor.apply(command('job_start', 1))).outcome).toBe('succeeded');
    pidOf(executor);
    expect(await observed(executor)).toMatchObject({ state: 'running', generation: 1, error: null });
  });
});

describe('invalid specs', () => {
  it('a command that does not exist → permanent command_not_found; a running child is left alone', async () => {
    const executor = open();
    await executor.apply(command('job_start', 1));
    const pid = pidOf(executor);
    const result = await executor.apply(command('job_start', 2, { spec: { command: 'fleetplane-no-such-command-xyz' } }));
    expect(result).toMatchObject({ outcome: 'failed', failure_class: 'permanent', code: 'command_not_found' });
    expect(executor.pid('ingest')).toBe(pid);
    expect(await observed(executor)).toMatchObject({ generation: 1, state: 'running' });

    const absolute = await executor.apply(command('job_start', 2, { stream_id: 'other', spec: { command: join(stateDir, 'nope') } }));
    expect(absolute).toMatchObject({ failure_class: 'permanent', code: 'command_not_found' });
  });

  it('a spawn that fails with ENOENT (a script whose interpreter is missing) → permanent command_not_found, reported failed', async () => {
    const executor = open();
    const script = join(stateDir, 'broken.sh');
    writeFileSync(script, '#!/fleetplane/no/such/interpreter\n', { mode: 0o755 });
    expect(await executor.apply(command('job_start', 1, { spec: { command: script } }))).toMatchObject({
      outcome: 'failed',
      failure_class: 'permanent',
      code: 'command_not_found',
    });
    expect(await observed(executor)).toMatchObject({ generation: 1, state: 'failed' });
  });

  it('a command that is not executable → permanent command_not_executable', async () => {
    const executor = open();
    const file = join(stateDir, 'plain.txt');
    writeFileSync(file, 'not a program\n', { mode: 0o644 });
    expect(await executor.apply(command('job_start', 1, { spec: { command: file } }))).toMatchObject({ failure_class: 'permanent', code: 'command_not_executable' });
  });

  it('missing or malformed spec.command, args or env → permanent invalid_spec', async () => {
    const executor = open();
    for (const spec of [{}, { command: '' }, { command: 42 }, { command: 'node', args: 'x' }, { command: 'node', env: { A: 1 } }]) {
      expect(await executor.apply(command('job_start', 1, { spec }))).toMatchObject({ outcome: 'failed', failure_class: 'permanent', code: 'invalid_spec' });
    }
    expect(await executor.observe()).toEqual([]);
  });
});

describe('agent restart', () => {
  it('a new executor on the same state dir adopts the running child by pid, and can stop it', async () => {
    const first = open();
    await first.apply(command('job_restart', 4, { action_id: 'act_9' }));
    const pid = pidOf(first);
    await first.close();
    expect(alive(pid)).toBe(true); // close leaves the workload running

    const second = open();
    expect(second.pid('ingest')).toBe(pid);
    expect(await second.observe()).toEqual([{ stream_id: 'ingest', generation: 4, state: 'running', last_action_id: 'act_9', error: null, health: RUNNING }]);
    expect((await second.apply(command('job_start', 4))).outcome).toBe('succeeded');
    expect(second.pid('ingest')).toBe(pid);

    expect((await second.apply(command('job_stop', 5))).outcome).toBe('succeeded');
    expect(alive(pid)).toBe(false);
    expect(await observed(second)).toMatchObject({ generation: 5, state: 'stopped' });
  });

  it('an adopted child that dies is noticed (onChange) and reported failed', async () => {
    const first = open();
    await first.apply(command('job_start', 1));
    const pid = pidOf(first);
    await first.close();

    const second = open();
    let changes = 0;
    second.onChange(() => {
      changes += 1;
    });
    process.kill(pid, 'SIGKILL');
    await waitFor(() => (changes > 0 ? true : undefined));
    expect(await observed(second)).toMatchObject({ generation: 1, state: 'failed' });
  });

  it("a stream's state.json that is not a JSON object is set aside and said so at start, its process stopped; the other streams are adopted", async () => {
    const first = open();
    await first.apply(command('job_start', 1));
    await first.apply(command('job_start', 1, { stream_id: 'other' }));
    const other = pidOf(first, 'other');
    await first.close();
    const state = join(stateDir, 'streams', 'other', 'state.json');
    writeFileSync(state, 'null');

    const lines: Array<[string, string, Record<string, unknown>?]> = [];
    const second = open({ log: (...line) => lines.push(line) });
    expect((await second.observe()).map((s) => s.stream_id)).toEqual(['ingest']);
    expect(readFileSync(`${state}.unreadable`, 'utf8')).toBe('null');
    expect(lines).toEqual([
      ['error', `state file unreadable, set aside as ${state}.unreadable: the stream is not reported until an attempt for it comes`, { path: state, error: 'not a JSON object' }],
      // Its next start would run a second copy beside it.
      ['warn', `stopping pid ${other} of stream other at generation 1, started by an earlier agent: no readable state names its stream`, { stream_id: 'other', pid: other, generation: 1 }],
    ]);
    await waitFor(() => (alive(other) ? undefined : true));
  });

  it('temporary files a crash left mid-write are removed at start; state files stay', async () => {
    const first = open();
    await first.apply(command('job_start', 1));
    pidOf(first);
    const streamDir = join(stateDir, 'streams', 'ingest');
    for (const tmp of [join(streamDir, 'state.json.4242.tmp'), join(stateDir, 'config', 'state.json.4242.tmp'), join(stateDir, 'config', 'recovery', 'rp_x.4242.tmp')]) writeFileSync(tmp, '{"half');
    await first.close();
    const second = open();
    expect(readdirSync(streamDir).sort()).toEqual(['output.log', 'state.json']);
    expect(readdirSync(join(stateDir, 'config'))).toEqual(['recovery']);
    expect(readdirSync(join(stateDir, 'config', 'recovery'))).toEqual([]);
    expect(await observed(second)).toMatchObject({ generation: 1, state: 'running' });
  });

  it('a child that died while no agent ran is reported failed at start', async () => {
    const first = open();
    await first.apply(command('job_start', 1));
    const pid = pidOf(first);
    await first.close();
    process.kill(pid, 'SIGKILL');
    await waitFor(() => (alive(pid) ? undefined : true));

    const second = open();
    expect(await observed(second)).toMatchObject({ generation: 1, state: 'failed', error: 'exited while the agent was not running (exit status unknown)' });
  });
});

describe('a stream the Hub removed', () => {
  it('K5 is forgotten once stopped at the removal\'s generation or before: record, directory and output gone, for good', async () => {
    const executor = open();
    await executor.apply(command('job_start', 1));
    const dir = join(stateDir, 'streams', 'ingest');
    // Running: kept, whatever the generation named.
    expect(await executor.forget('ingest', 5)).toBe(false);
    expect(executor.pid('ingest')).not.toBeNull();
    await executor.apply(command('job_stop', 2));
    expect(existsSync(join(dir, 'output.log'))).toBe(true);
    // Stopped at a newer generation than the removal named (created again since): kept.
    expect(await executor.forget('ingest', 1)).toBe(false);
    expect(await observed(executor)).toMatchObject({ generation: 2, state: 'stopped' });

    expect(await executor.forget('ingest', 2)).toBe(true);
    expect(await executor.observe()).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect(await executor.forget('ingest', 2)).toBe(false);
    // An agent started again on the state dir does not bring it back; a later start creates it afresh.
    const again = open();
    expect(await again.observe()).toEqual([]);
    await again.apply(command('job_start', 3));
    pidOf(again);
    expect(await observed(again)).toMatchObject({ generation: 3, state: 'running' });
  });
});

describe('output log rotation', () => {
  const LIMIT = 4096;
  // Writes a burst past LIMIT in one write, waits until its log is truncated (fstat of its own stdout), then
  // writes a line after: the rotation happens while nothing is written, so no line falls between copy and truncate.
  // The label comes by env, so the command line the log records does not contain the lines looked for.
  const BURST_THEN_AFTER = `const fs = require('fs'), label = process.env.LABEL;
    fs.writeSync(1, Array.from({ length: 600 }, (_, i) => label + ' early ' + i + '\\n').join(''));
    const full = fs.fstatSync(1).size;
    const wait = setInterval(() => {
      if (fs.fstatSync(1).size >= full) return;
      clearInterval(wait);
      fs.writeSync(1, label + ' late\\n');
      setInterval(() => {}, 1000);
    }, 10);`;
  const burstThenAfter = (label: string) => ({ command: process.execPath, args: ['-e', BURST_THEN_AFTER], env: { LABEL: label } });
  const read = (streamId: string, name: string) => {
    const path = join(stateDir, 'streams', streamId, name);
    return existsSync(path) ? readFileSync(path, 'utf8') : '';
  };

  it('past logMaxBytes, output.log is copied to output.log.1 and truncated; the child goes on writing to output.log', async () => {
    const executor = open({ logMaxBytes: LIMIT });
    await executor.apply(command('job_start', 1, { spec: burstThenAfter('one') }));
    pidOf(executor);
    const log = await waitFor(() => (read('ingest', 'output.log').includes('one late') ? read('ingest', 'output.log') : undefined));
    expect(log).not.toContain('one early');
    expect(Buffer.byteLength(log)).toBeLessThan(LIMIT);
    const rotated = read('ingest', 'output.log.1');
    expect(rotated).toContain('fleetplane: starting generation 1');
    expect(rotated).toContain('one early 0\n');
    expect(rotated).toContain('one early 599\n');
    expect(rotated).not.toContain('one late');

    // A new generation's burst rotates again: output.log.1 is replaced.
    await executor.apply(command('job_start', 2, { spec: burstThenAfter('two') }));
    pidOf(executor);
    await waitFor(() => (read('ingest', 'output.log').includes('two late') ? true : undefined));
    expect(read('ingest', 'output.log.1')).toContain('two early 599\n');
    expect(read('ingest', 'output.log.1')).not.toContain('one early');
  });

  it('a stream whose log cannot be rotated is skipped: the others are rotated and every stream is still reported', async () => {
    const executor = open({ logMaxBytes: LIMIT });
    // A directory where output.log.1 goes: copying onto it fails.
    mkdirSync(join(stateDir, 'streams', 'blocked', 'output.log.1'), { recursive: true });
    await executor.apply(command('job_start', 1, { stream_id: 'blocked', spec: burstThenAfter('blocked') }));
    pidOf(executor, 'blocked');
    await waitFor(() => (read('blocked', 'output.log').includes('blocked early 599\n') ? true : undefined));
    await executor.apply(command('job_start', 1, { stream_id: 'ingest', spec: burstThenAfter('ingest') }));
    pidOf(executor, 'ingest');
    await waitFor(() => (read('ingest', 'output.log').includes('ingest late') ? true : undefined));
    // The look that rotated ingest came after blocked's burst: blocked was tried first, and left as it was.
    expect(read('blocked', 'output.log')).toContain('blocked early 599\n');
    expect((await executor.observe()).map((s) => [s.stream_id, s.state])).toEqual([
      ['blocked', 'running'],
      ['ingest', 'running'],
    ]);
  });
});

describe('configuration', () => {
  const apply = (version: string, content: string, capture = true) =>
    command('config_apply', 1, { stream_id: 'config', config_version: version, spec: { content }, flags: { capture_recovery: capture } });
  const current = () => readFileSync(join(stateDir, 'config', 'current'), 'utf8');

  it('an apply captures the previous configuration as a recovery point; a restore puts it back', async () => {
    const executor = open();
    expect((await executor.apply(apply('cv_1', 'one'))).outcome).toBe('succeeded');
    expect(current()).toBe('one');
    expect(await executor.configuration()).toEqual({ applied_version: 'cv_1', recovery_points: [] }); // nothing before to capture

    const second = apply('cv_2', 'two');
    expect((await executor.apply(second)).outcome).toBe('succeeded');
    expect(current()).toBe('two');
    const ref = `rp_${second.attempt_id}`;
    expect(readFileSync(join(stateDir, 'config', 'recovery', ref), 'utf8')).toBe('one');
    expect(await executor.configuration()).toEqual({ applied_version: 'cv_2', recovery_points: [{ ref, config_version: 'cv_1' }] });

    // The same attempt again captures nothing new (it would capture its own result).
    expect((await executor.apply(second)).outcome).toBe('succeeded');
    expect((await executor.configuration()).recovery_points).toHaveLength(1);

    const restore = command('restore', 2, { stream_id: 'config', config_version: 'cv_1' });
    expect(await executor.apply(restore)).toMatchObject({ outcome: 'succeeded' });
    expect(current()).toBe('one');
    expect((await executor.configuration()).applied_version).toBe('cv_1');
    expect((await executor.apply(restore)).outcome).toBe('succeeded'); // idempotent
  });

  it('without capture_recovery nothing is captured; content defaults to the version', async () => {
    const executor = open();
    await executor.apply(command('config_apply', 1, { stream_id: 'config', config_version: 'cv_a' }));
    await executor.apply(command('config_apply', 2, { stream_id: 'config', config_version: 'cv_b' }));
    expect(current()).toBe('cv_b');
    expect(await executor.configuration()).toEqual({ applied_version: 'cv_b', recovery_points: [] });
  });

  it('a restore with no recovery point fails pre_mutation and touches nothing', async () => {
    const executor = open();
    expect(await executor.apply(command('restore', 1, { stream_id: 'config' }))).toEqual({
      outcome: 'failed',
      failure_class: 'permanent',
      code: 'no_recovery_point',
      message: 'no recovery point on this node',
      mutation: 'pre_mutation',
    });
    await executor.apply(apply('cv_1', 'one'));
    const second = apply('cv_2', 'two');
    await executor.apply(second);
    expect(await executor.apply(command('restore', 3, { stream_id: 'config', config_version: 'cv_9' }))).toMatchObject({
      code: 'no_recovery_point',
      mutation: 'pre_mutation',
    });
    expect(await executor.apply(command('restore', 3, { stream_id: 'config', config_version: 'cv_2', spec: { recovery_ref: `rp_${second.attempt_id}` } }))).toMatchObject({
      code: 'recovery_point_mismatch',
      mutation: 'pre_mutation',
    });
    expect(current()).toBe('two');
    expect((await executor.configuration()).applied_version).toBe('cv_2');
  });

  it('a configuration the disk takes only in part is not applied: a failed write before any change, the old one kept', async () => {
    await open().apply(apply('cv_1', 'one'));
    // A file size limit cuts a write short as a nearly full disk does: write(2) takes what fits and says so.
    const script = `import { createProcessExecutor } from ${JSON.stringify(join(__dirname, 'process.ts'))};
      const executor = createProcessExecutor({ stateDir: process.argv[1] });
      console.log(JSON.stringify(await executor.apply(JSON.parse(process.argv[2]))));
      await executor.close();`;
    const big = apply('cv_2', 'x'.repeat(10_000), false);
    const output = execFileSync('prlimit', ['--fsize=4096', process.execPath, '--input-type=module', '-e', script, stateDir, JSON.stringify(big)], { encoding: 'utf8' });
    expect(JSON.parse(output)).toMatchObject({ outcome: 'failed', failure_class: 'temporary', code: 'config_write_failed', mutation: 'pre_mutation' });
    expect(current()).toBe('one');
    expect((await open().configuration()).applied_version).toBe('cv_1');
  });

  it('a config/state.json that is not JSON (a disk fault) is set aside and said so: reports go on, and the next apply holds', async () => {
    const lines: Array<[string, string, Record<string, unknown>?]> = [];
    const executor = open({ log: (...line) => lines.push(line) });
    await executor.apply(apply('cv_1', 'one'));
    const state = join(stateDir, 'config', 'state.json');
    writeFileSync(state, '{"applied_version": "cv_1", "recov');
    expect(await executor.configuration()).toEqual({ applied_version: null, recovery_points: [] });
    expect(readFileSync(`${state}.unreadable`, 'utf8')).toBe('{"applied_version": "cv_1", "recov');
    expect(lines).toEqual([
      ['error', `state file unreadable, set aside as ${state}.unreadable: the node reports no configuration until the next apply`, { path: state, error: expect.stringMatching(/JSON/) }],
    ]);
    expect((await executor.apply(apply('cv_2', 'two'))).outcome).toBe('succeeded');
    expect(await executor.configuration()).toEqual({ applied_version: 'cv_2', recovery_points: [] });
  });

  it('a config/state.json that is not JSON and cannot be set aside is said so at each read, and reports go on', async () => {
    const lines: Array<[string, string, Record<string, unknown>?]> = [];
    const executor = open({ log: (...line) => lines.push(line) });
    const state = join(stateDir, 'config', 'state.json');
    writeFileSync(state, '{');
    mkdirSync(join(`${state}.unreadable`, 'in-the-way'), { recursive: true });
    expect(await executor.configuration()).toEqual({ applied_version: null, recovery_points: [] });
    expect(await executor.configuration()).toEqual({ applied_version: null, recovery_points: [] });
    expect(lines).toEqual([1, 2].map(() => ['error', expect.stringMatching(/^state file unreadable, and it cannot be set aside \(.+\): the node reports no configuration until the next apply$/), expect.objectContaining({ path: state })]));
  });

  it('an apply cut by a crash between writing the content and its version captures no point of the wrong content when tried again', async () => {
    const executor = open();
    await executor.apply(apply('cv_1', 'one'));
    // The agent was killed after config/current took cv_2's content and before config/state.json took its version.
    writeFileSync(join(stateDir, 'config', 'current'), 'two');
    expect((await executor.apply(apply('cv_2', 'two'))).outcome).toBe('succeeded');
    // A point claiming cv_1 would hold 'two': a restore of it would put cv_2 back and report cv_1.
    expect(await executor.configuration()).toEqual({ applied_version: 'cv_2', recovery_points: [] });
    const third = apply('cv_3', 'three');
    expect((await executor.apply(third)).outcome).toBe('succeeded');
    expect(await executor.configuration()).toEqual({ applied_version: 'cv_3', recovery_points: [{ ref: `rp_${third.attempt_id}`, config_version: 'cv_2' }] });
    expect(readFileSync(join(stateDir, 'config', 'recovery', `rp_${third.attempt_id}`), 'utf8')).toBe('two');
  });

  it('configuration and recovery points survive an agent restart', async () => {
    const first = open();
    await first.apply(apply('cv_1', 'one'));
    await first.apply(apply('cv_2', 'two'));
    await first.close();
    const second = open();
    expect((await second.configuration()).applied_version).toBe('cv_2');
    expect((await second.apply(command('restore', 3, { stream_id: 'config' }))).outcome).toBe('succeeded');
    expect(current()).toBe('one');
  });
});
