import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttemptCommand } from './executor.ts';
import { createProcessExecutor, type ProcessExecutor } from './process.ts';

// An agent SIGKILLed between spawning a stream's child and saving its pid left the child running with no
// owner: the next agent reported the stream "failed: not running", and the Hub's next start ran a second copy.

const LONG = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
const start = (generation: number): AttemptCommand => ({
  attempt_id: `at_${generation}`, intent_id: `in_${generation}`, operation: 'job_start', stream_id: 'ingest', generation,
  spec: LONG, action_id: null, config_version: null, flags: {},
});

let stateDir: string;
const executors: ProcessExecutor[] = [];
const pids: number[] = [];
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'fleetplane-unsaved-'));
});
afterEach(async () => {
  for (const executor of executors.splice(0)) {
    await executor.stopAll();
    await executor.close();
  }
  for (const pid of pids.splice(0)) if (alive(pid)) process.kill(-pid, 'SIGKILL');
  await rm(stateDir, { recursive: true, force: true });
  rmSync(`${stateDir}-link`, { force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Its own agent process applies `commands` in turn and pauses after the last spawn; SIGKILLed there. Answers the child's pid. */
async function killedBeforeSavingPid(commands: AttemptCommand[]): Promise<number> {
  const script = `import { createProcessExecutor } from ${JSON.stringify(join(__dirname, 'process.ts'))};
    const commands = JSON.parse(process.argv[2]);
    let left = commands.length;
    const executor = createProcessExecutor({ stateDir: process.argv[1], spawned: async (pid) => {
      if (--left > 0) return;
      console.log(pid);
      await new Promise(() => {});
    } });
    for (const c of commands) await executor.apply(c);`;
  const agent = spawn(process.execPath, ['--input-type=module', '-e', script, stateDir, JSON.stringify(commands)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await new Promise<number>((resolve, reject) => {
    let out = '';
    agent.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    agent.once('exit', (code) => reject(new Error(`the agent exited (${code}) before its child was spawned`)));
  });
  pids.push(pid);
  const exited = new Promise((resolve) => agent.once('exit', resolve));
  agent.kill('SIGKILL');
  await exited;
  return pid;
}

function open(lines: unknown[][], dir = stateDir): ProcessExecutor {
  const executor = createProcessExecutor({ stateDir: dir, stopGraceMs: 2000, adoptedPollMs: 50, log: (...line) => lines.push(line) });
  executors.push(executor);
  return executor;
}

test('a child whose pid the killed agent never saved is adopted by the next agent: reported running, not started twice', async () => {
  const orphan = await killedBeforeSavingPid([start(1)]);
  expect(alive(orphan)).toBe(true);
  const lines: unknown[][] = [];
  // The next agent may name the state dir another way (a symlink): it is still found as the same.
  const link = `${stateDir}-link`;
  symlinkSync(stateDir, link);
  const executor = open(lines, link);
  expect(executor.pid('ingest')).toBe(orphan);
  expect((await executor.observe())[0]).toMatchObject({ stream_id: 'ingest', generation: 1, state: 'running', error: null });
  expect(lines).toEqual([['warn', `adopted pid ${orphan} of stream ingest at generation 1, started by an earlier agent that stopped before saving its pid`, { stream_id: 'ingest', pid: orphan, generation: 1 }]]);
  // The Hub's next start of the same generation finds it running: no second copy.
  expect((await executor.apply({ ...start(1), attempt_id: 'at_again' })).outcome).toBe('succeeded');
  expect(executor.pid('ingest')).toBe(orphan);
});

test('a child the killed agent never saved that its stream no longer wants (a newer generation saved after it) is stopped', async () => {
  const orphan = await killedBeforeSavingPid([start(1)]);
  // The stream's state moved on without it: desired stopped at a later generation.
  const state = join(stateDir, 'streams', 'ingest', 'state.json');
  writeFileSync(state, JSON.stringify({ ...JSON.parse(readFileSync(state, 'utf8')), generation: 2, desired: 'stopped' }));
  const lines: unknown[][] = [];
  const executor = open(lines);
  expect(executor.pid('ingest')).toBeNull();
  expect(lines).toEqual([['warn', `stopping pid ${orphan} of stream ingest at generation 1, started by an earlier agent: its stream's state wants it stopped at generation 2`, { stream_id: 'ingest', pid: orphan, generation: 1 }]]);
  for (const deadline = Date.now() + 10_000; alive(orphan) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
  expect(alive(orphan)).toBe(false);
});
