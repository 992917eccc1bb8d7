import { describeInBrowser, capture, signIn } from '../support/browser.ts';
import { consoleSuite } from '../support/console-suite.ts';
import { takeAttempts, takeConfigAttempts, TestAgent } from '../support/fleet.ts';
import { testConfig, TOKENS } from '../support/hub.ts';

// Issue 22, item 1, in the console: the demo fleet's stalled rollout explains itself. An unrelated stream is
// blocked with command_not_found on the rollout's node (A10 makes the configuration wait for it); the
// rollout's target says so and links to that stream, whose own intent says it waits for a new generation.

jest.setTimeout(120_000);

describeInBrowser('console: what a stall waits on', () => {
  let rolloutId: string;
  const suite = consoleSuite({ config: testConfig(1, { mode: 'configuration' }) }, async (hub) => {
    const a = new TestAgent(hub, 'edge-1');
    await a.register();
    await a.report();
    const asOperator = (method: string, path: string, body: unknown) => hub.call(method, path, { token: TOKENS.operator, body });
    const placed = { desired_state: 'running', spec: { command: 'no-such-binary' }, placement: { nodes: ['edge-1'], split: false } };
    expect((await asOperator('PUT', '/api/v1/streams/broken', placed)).status).toBe(200);
    const [start] = await takeAttempts(a, 'broken');
    await a.result(start.attempt_id, { outcome: 'failed', generation: start.generation, failure_class: 'permanent', code: 'command_not_found', message: 'command not found' });
    const version = (await asOperator('POST', '/api/v1/config-versions', { content: 'demo: on\n', format: 'yaml' })).body.config_version;
    rolloutId = (await asOperator('POST', '/api/v1/rollouts', { config_version: version, targets: { nodes: ['edge-1'] } })).body.rollout_id;
    const [apply] = await takeConfigAttempts(a);
    a.apply(apply);
    await a.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
    await a.report();
    const target = (await hub.call('GET', `/api/v1/rollouts/${rolloutId}`)).body.targets[0];
    expect(target).toMatchObject({ state: 'applying', waiting_on: { kind: 'stream_blocked', stream_id: 'broken' } });
  });

  test('issue 22 a stalled rollout target shows what it waits on and links to the blocking stream, which shows its own wait', async () => {
    const { hub, browser } = suite;
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.viewer, 'audit');
    await page.getByRole('link', { name: 'Rollouts' }).click();
    const target = page.locator(`article[data-rollout="${rolloutId}"] tr[data-target="edge-1"]`);
    const waiting = target.locator('[data-waiting="stream_blocked"]');
    await waiting.getByText('stream blocked', { exact: true }).waitFor();
    await waiting.getByText(/stream broken is blocked on node edge-1 \(permanent command_not_found\)/).waitFor();
    await capture(page, 'rollouts-stalled');

    await waiting.getByRole('link', { name: 'stream broken' }).click();
    await page.getByRole('heading', { name: /broken: desired running/ }).waitFor();
    expect(new URL(page.url()).pathname + new URL(page.url()).hash).toBe('/streams#stream-broken');
    // The link lands on the stream: its heading is focused, as a fragment is on a full page load.
    expect(await page.evaluate('document.activeElement?.id')).toBe('stream-broken');
    const row = page.locator('tr[data-node="edge-1"]');
    await row.locator('[data-waiting="new_generation"]').getByText(/only a new generation resumes/).waitFor();
    await row.getByRole('link', { name: 'node edge-1' }).waitFor();
    await capture(page, 'streams-blocked');

    await row.getByRole('link', { name: 'node edge-1' }).click();
    await page.locator('tr#node-edge-1').waitFor();
    expect(await page.evaluate('document.activeElement?.id')).toBe('node-edge-1');
    await page.close();
  });
});
