import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ObservedStream } from '@fleetplane/core';
import { waitFor } from '../../../test/support/fake-hub.ts';
import { agentToken, testConfig } from '../../../test/support/hub.ts';
import { hubSuite } from '../../../test/support/hub-suite.ts';
import { Agent } from './agent.ts';
import { createSimExecutor } from './executors/sim.ts';

// A report the Hub refuses as too large is refused every time, and the node goes offline while its agent
// runs: the agent says so, and what is too large, not "report failed" as for a Hub that is away for a moment.

const suite = hubSuite({ config: testConfig(1) });
type Line = { level: string; message: string; fields: Record<string, unknown> };

test('A8 an agent whose report is over the Hub\'s body limit logs an error naming its size and streams', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fleetplane-agent-'));
  const sim = createSimExecutor();
  const failing = Array.from({ length: 5000 }, (_, n): ObservedStream => ({ stream_id: `s-${n}`, generation: 1, state: 'failed', last_action_id: null, error: 'e'.repeat(4000) }));
  const lines: Line[] = [];
  const agent = new Agent({
    hub: suite.hub.url, nodeId: 'edge-1', token: agentToken('edge-1'), stateDir: dir, pollSeconds: 1, reportEveryMs: 60_000,
    executor: { ...sim, apply: (c) => sim.apply(c), observe: async () => failing, forget: (s, g) => sim.forget(s, g), onChange: (l) => sim.onChange(l), close: () => sim.close() },
    log: (level, message, fields = {}) => lines.push({ level, message, fields }),
  });
  try {
    await agent.start();
    await waitFor(() => lines.some((l) => l.level === 'error'));
    const line = lines.find((l) => l.level === 'error')!;
    expect(line.message).toMatch(/^the Hub refuses this node's report of 5000 streams as too large \(\d+ bytes; 413 body_too_large: .*16 MiB\): the Hub shows this node offline/);
    expect(line.fields).toMatchObject({ streams: 5000, bytes: expect.any(Number) });
    expect(line.fields['bytes']).toBeGreaterThan(16 * 1024 * 1024);
  } finally {
    await agent.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
