import { describeInBrowser, signIn } from '../support/browser.ts';
import { consoleSuite } from '../support/console-suite.ts';
import { eventually, takeConfigAttempts, TestAgent } from '../support/fleet.ts';
import { testConfig, TOKENS } from '../support/hub.ts';

// A large rollout on the Rollouts page: its card reads a page of its targets at a time (Previous, Next, a
// state), never the rollout with every target.

jest.setTimeout(120_000);

const NODES = 300;

describeInBrowser('console: the targets of a large rollout', () => {
  let rolloutId = '';
  const suite = consoleSuite({ config: testConfig(NODES, { mode: 'configuration' }) }, async (hub) => {
    const first = await TestAgent.reporting(hub, 'edge-1');
    for (let i = 1; i < NODES; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, NODES - i) }, (_, j) => new TestAgent(hub, `edge-${i + j + 1}`).register()));
    }
    const asOperator = (method: string, path: string, body: unknown) => hub.call(method, path, { token: TOKENS.operator, body });
    const version = (await asOperator('POST', '/api/v1/config-versions', { content: 'scale: yes\n', format: 'yaml' })).body.config_version;
    const nodes = Array.from({ length: NODES }, (_, i) => `edge-${i + 1}`);
    rolloutId = (await asOperator('POST', '/api/v1/rollouts', { config_version: version, targets: { nodes }, batch_size: 100 })).body.rollout_id;
    // edge-1 refuses its version for good: one failed target, and the rollout pauses.
    const [attempt] = await takeConfigAttempts(first);
    await first.result(attempt.attempt_id, { outcome: 'failed', generation: attempt.generation, failure_class: 'permanent', code: 'invalid_config', message: 'parse error' });
    await eventually(async () => ((await hub.call('GET', `/api/v1/rollouts/${rolloutId}/summary`)).body.state === 'paused' ? true : undefined));
  });

  test('G5 the Rollouts page reads a large rollout\'s targets a page at a time, by state if asked, never the whole rollout', async () => {
    const { hub, browser } = suite;
    const page = await browser.tab();
    const reads: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith(`/api/v1/rollouts/${rolloutId}`)) reads.push(`${url.pathname}${url.search}`);
    });
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByRole('link', { name: 'Rollouts' }).click();
    const card = page.locator(`article[data-rollout="${rolloutId}"]`);
    await card.getByRole('button', { name: `Show the ${NODES} targets` }).click();
    await card.getByText(`Targets 1–50 of ${NODES}`).waitFor();
    expect(await card.locator('tr[data-target]').count()).toBe(50);
    // The first target of the first batch, by batch then node id: edge-1, failed and highlighted.
    await card.locator('tr[data-target="edge-1"].highlight').getByText('invalid_config').waitFor();

    const pager = card.getByRole('navigation', { name: `Pages of targets of ${rolloutId}` });
    await pager.getByRole('button', { name: 'Next page' }).click();
    await card.getByText(`Targets 51–100 of ${NODES}`).waitFor();
    await pager.getByRole('button', { name: 'Next page' }).click();
    await card.getByText(`Targets 101–150 of ${NODES}`).waitFor();
    // The second batch waits for the pause.
    await card.locator('tr[data-target]').first().getByText('the rollout is paused', { exact: false }).waitFor();
    await pager.getByRole('button', { name: 'Previous page' }).click();
    await card.getByText(`Targets 51–100 of ${NODES}`).waitFor();

    await card.getByLabel('Targets to show').selectOption('failed');
    await card.getByText('Targets 1–1 of 1 failed').waitFor();
    expect(await card.locator('tr[data-target]').count()).toBe(1);
    expect(await pager.count()).toBe(0);

    const base = `/api/v1/rollouts/${rolloutId}/targets?limit=50`;
    expect(reads).not.toContain(`/api/v1/rollouts/${rolloutId}`);
    expect(new Set(reads.map((r) => r.replace(/cursor=[^&]+/, 'cursor=…')))).toEqual(new Set([base, `${base}&cursor=…`, `${base}&state=failed`]));
    await page.close();
  });
});
