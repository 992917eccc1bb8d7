import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/ports.ts';
import { markedProcesses, startInTerminal, type TerminalProcess } from './support/process.ts';

// Ctrl-C in a terminal is a SIGINT to the whole foreground process group: the npm script, and every process
// of the group that has not moved to one of its own.
let dataDir: string;
let running: TerminalProcess | null = null;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetplane-interrupt-'));
});
afterEach(async () => {
  // Whatever a failed run left behind was started here: it goes.
  for (const { pid } of running ? markedProcesses(running.mark) : []) process.kill(pid, 'SIGKILL');
  running = null;
  await rm(dataDir, { recursive: true, force: true });
});

const env = async () => ({ FLEETPLANE_DATA_DIR: dataDir, FLEETPLANE_PORT: String(await freePort()), FLEETPLANE_PG_PORT: String(await freePort()) });

/**
 * Ctrl-C, then the exit code. Generous bound: the Hub stops in about a second, the demo first waits up to
 * 15 s for its workload to stop; "still running" after a minute is a hang.
 */
const interrupt = (p: TerminalProcess) =>
  Promise.race([p.interrupt(), new Promise<string>((r) => setTimeout(() => r('still running after 60 s'), 60_000).unref())]);

/** Processes that outlive their parent's exit are leftovers; PostgreSQL's own take a moment to go with it. */
async function leftovers(mark: string): Promise<string[]> {
  for (let i = 0; i < 20 && markedProcesses(mark).length > 0; i++) await new Promise((r) => setTimeout(r, 250));
  return markedProcesses(mark).map((p) => p.command);
}

const cleanOutput = (output: string) => {
  expect(output).not.toContain('57P01');
  expect(output).not.toMatch(/\n\s+at /); // a stack frame
  expect(output).not.toMatch(/unhandled/i);
  expect(output).not.toContain('"level":"error"');
  // The embedded server needs no setup of the roles: the Hub runs as fleetplane_app, not as the log's owner.
  expect(output).not.toContain('owns the event log');
};

test('reliability 7: Ctrl-C on npm start stops the Hub, then its embedded PostgreSQL: exit 0, no 57P01 trace, nothing left running', async () => {
  running = await startInTerminal(['start'], await env(), /Fleetplane Hub ready on/);
  expect(markedProcesses(running.mark).some((p) => p.command.includes(join(dataDir, 'postgres')))).toBe(true);
  expect(await interrupt(running)).toBe(0);
  cleanOutput(running.output());
  expect(running.output()).toContain('"message":"stopped"');
  expect(await leftovers(running.mark)).toEqual([]);
}, 120_000);

test('reliability 7: Ctrl-C on npm run demo stops the workload, the agents, the Hub and its PostgreSQL: exit 0, no error, nothing left running', async () => {
  running = await startInTerminal(['run', 'demo'], await env(), /demo-1 running@\d+, demo-2 running@\d+, demo-3 running@\d+/);
  const before = markedProcesses(running.mark).map((p) => p.command);
  expect(before.filter((c) => c.includes('agent/src/cli.ts'))).toHaveLength(3);
  // Their tokens come in their environment: a command line is readable by any local user.
  expect(before.filter((c) => c.includes('--token'))).toEqual([]);
  expect(before.filter((c) => c.includes("console.log('tick'"))).toHaveLength(3);
  expect(await interrupt(running)).toBe(0);
  cleanOutput(running.output());
  expect(await leftovers(running.mark)).toEqual([]);
}, 180_000);
