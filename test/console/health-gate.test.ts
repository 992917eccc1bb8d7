import { describeInBrowser, capture, signIn } from '../support/browser.ts';
import { consoleSuite } from '../support/console-suite.ts';
import { eventually, takeAttempts, takeConfigAttempts, TestAgent } from '../support/fleet.ts';
import { testConfig, TOKENS } from '../support/hub.ts';

// SPEC L5 in the console: a rollout's health gate, soaking and then failed, with its evidence on the rollout
// card. A screenshot goes to test-artifacts/console/.

jest.setTimeout(120_000);

describeInBrowser('console: health gates', () => {
  const suite = consoleSuite({ config: testConfig(1, { mode: 'configuration' }) });

  const asOperator = (method: string, path: string, body?: unknown) => suite.hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });

  test('L5 the rollout card shows the gate soaking, then failed with which target, which stream, why and since when', async () => {
    const { hub, browser } = suite;
    const agent = new TestAgent(hub, 'edge-1');
    await agent.register();
    expect((await asOperator('PUT', '/api/v1/streams/ingest', { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1'] } })).status).toBe(200);
    const [start] = await takeAttempts(agent, 'ingest');
    agent.apply(start);
    agent.streams.set('ingest', { ...agent.streams.get('ingest')!, health: { status: 'running', exit_code: null, restarts: 0 } });
    await agent.result(start.attempt_id, { outcome: 'succeeded', generation: start.generation });
    await agent.report();
    const cv = (await asOperator('POST', '/api/v1/config-versions', { content: 'threads: 0\n', format: 'yaml' })).body.config_version;
    const id = (await asOperator('POST', '/api/v1/rollouts', { config_version: cv, targets: { nodes: ['edge-1'] }, health: { soak_ms: 300_000 } })).body.rollout_id;
    const [apply] = await takeConfigAttempts(agent);
    agent.apply(apply);
    await agent.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
    await agent.report();

    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByRole('link', { name: 'Rollouts' }).click();
    const gate = page.locator(`article[data-rollout="${id}"]`).getByTestId('health-gate');
    await gate.getByText('Health gate: soak 300 s, at most 0 unhealthy targets, then pause').waitFor();
    await gate.getByText('soaking', { exact: true }).waitFor();

    // The new configuration crashes the stream after the node reported it converged.
    agent.streams.set('ingest', { stream_id: 'ingest', generation: start.generation, state: 'failed', last_action_id: null, health: { status: 'exited', exit_code: 3, restarts: 0 } });
    await agent.report();
    await eventually(async () => ((await hub.call('GET', `/api/v1/rollouts/${id}`)).body.state === 'paused' ? true : undefined), 30_000);
    await gate.getByText('failed', { exact: true }).waitFor();
    const evidence = gate.getByRole('table', { name: 'Why the gate failed' }).getByRole('row', { name: /edge-1/ });
    await evidence.getByText('ingest').waitFor();
    await evidence.getByText('not running: failed').waitFor();
    const since = (await hub.call('GET', `/api/v1/rollouts/${id}`)).body.gate.evidence[0].since;
    expect(await evidence.locator('time').getAttribute('datetime')).toBe(since);
    await page.locator(`article[data-rollout="${id}"]`).getByText('Paused: health_gate').waitFor();
    await capture(page, 'rollout-health-gate');
    // Cancelled, it no longer says paused: the reason of its last pause stays in the record only.
    expect((await asOperator('POST', `/api/v1/rollouts/${id}/actions`, { action: 'cancel' })).status).toBe(200);
    const card = page.locator(`article[data-rollout="${id}"]`);
    await card.getByRole('heading').getByText('cancelled', { exact: true }).waitFor();
    expect(await card.getByText(/^Paused:/).count()).toBe(0);
    await page.close();
  });
});
