import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/ports.ts';
import { startAgentProcess, startProcess } from './support/process.ts';

// The agent's command line refuses values the Hub would refuse on every request, before it starts.
const args = { hub: 'http://127.0.0.1:9', 'node-id': 'edge-1', token: 't', 'state-dir': '/nonexistent/fleetplane-agent' };

test.each([
  ['poll-seconds', '90', /--poll-seconds must be a whole number of seconds from 0 to 60, got 90/],
  ['poll-seconds', '1.5', /--poll-seconds must be a whole number/],
  ['report-every-ms', 'often', /--report-every-ms must be a whole number of milliseconds, at least 100, got often/],
])('the agent refuses --%s %s with exit code 2 and says why', async (flag, value, message) => {
  await expect(startAgentProcess({ ...args, [flag]: value })).rejects.toThrow(new RegExp(`exited with 2 before it was ready:\\n[^]*${message.source}`));
});

test.each([
  [['--bogus'], "Unknown option '--bogus' (fleetplane-agent --help lists the options)"],
  [['--node-id'], "Option '--node-id <value>' argument missing (fleetplane-agent --help lists the options)"],
  [['stray'], "Unexpected argument 'stray' (fleetplane-agent --help lists the options)"],
  [['--hub', 'notaurl'], "--hub takes the Hub's http:// or https:// URL, got notaurl"],
  [['--hub', 'ftp://hub'], "--hub takes the Hub's http:// or https:// URL, got ftp://hub"],
  [['--executor', 'foo'], '--executor takes process or sim, got foo'],
  [['--sim-latency-ms', 'soon'], '--sim-latency-ms takes a whole number of milliseconds, got soon'],
  [['--control-advertise', '10.0.0.5:99999'], '--control-advertise takes HOST:PORT the Hub can reach (a port of 1-65535, IPv4 parts at most 255, brackets around IPv6 only), got 10.0.0.5:99999'],
])('agent: %j is a usage error before anything starts: one line on stderr naming the option, exit code 2', async (extra, line) => {
  const { code, stderr } = await runAgent([...Object.entries(args).flatMap(([k, v]) => [`--${k}`, v]), ...extra]);
  expect({ code, stderr }).toEqual({ code: 2, stderr: line + '\n' });
});

test("the agent logs JSON lines in the Hub's format, and a Hub it cannot reach is a warning with the cause", async () => {
  const hub = `http://127.0.0.1:${await freePort()}`;
  const dir = await mkdtemp(join(tmpdir(), 'fleetplane-agent-'));
  const agent = await startProcess(join(__dirname, '../packages/agent/src/cli.ts'), ['--hub', hub, '--node-id', 'edge-1', '--token', 't', '--state-dir', dir], process.env, /^\{.*"register failed, retrying".*\}$/m);
  try {
    const line = JSON.parse(agent.match[0]);
    expect(line).toEqual({
      level: 'warn',
      message: 'register failed, retrying',
      service: 'fleetplane-agent',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      node_id: 'edge-1',
      error: 'POST /api/v1/agent/register: no answer from the Hub',
      cause: expect.stringMatching(/ECONNREFUSED/),
      correlation_id: expect.any(String),
      retry_in_ms: expect.any(Number),
    });
    // Its first backoff, 250 ms, and up to half as long again of jitter.
    expect(line.retry_in_ms).toBeGreaterThanOrEqual(250);
    expect(line.retry_in_ms).toBeLessThanOrEqual(375);
  } finally {
    await agent.stop('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
});

/** The agent run to its end (killed after 10 s: one that retries forever started when it should not have): its exit code and stderr. */
function runAgent(argv: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(__dirname, '../packages/agent/src/cli.ts'), ...argv], { timeout: 10_000 }, (error, _stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
    );
  });
}
