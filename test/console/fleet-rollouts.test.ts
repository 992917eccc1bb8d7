import type { Page } from 'playwright-core';
import { describeInBrowser, launchBrowser, capture, signIn, type Browser } from '../support/browser.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { eventually, TestAgent } from '../support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../support/hub.ts';
import { serveAttempts } from '../support/serve-attempts.ts';

// The web console in headless Chromium against a real Hub: sign-in, the fleet overview with label editing
// and drain, a rollout created by selector and watched until simulated agents converge it, the streams
// page, and what a viewer is (not) offered. Screenshots of each page go to test-artifacts/console/.

jest.setTimeout(120_000);

describeInBrowser('console: fleet, labels, rollouts, streams', () => {
  let t: TestDatabase;
  let hub: TestHub;
  let browser: Browser;
  let agents: TestAgent[];
  let serving: Array<{ stop(): Promise<void> }> = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    hub = await startTestHub(t.url, { config: testConfig(3, { mode: 'configuration' }) });
    agents = ['edge-1', 'edge-2', 'edge-3'].map((id) => new TestAgent(hub, id));
    for (const a of agents) {
      await a.register();
      await a.report();
    }
    await hub.call('PUT', '/api/v1/nodes/edge-2/labels', { token: TOKENS.operator, body: { labels: { env: 'prod' } } });
    await hub.call('PUT', '/api/v1/nodes/edge-3/labels', { token: TOKENS.operator, body: { labels: { env: 'dev' } } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await Promise.all(serving.map((s) => s.stop()));
    await browser?.close();
    await hub?.stop();
    await t?.drop();
  });
  afterEach(() => {
    expect(browser.errors).toEqual([]);
  });

  const row = (page: Page, nodeId: string) => page.locator(`tr[data-node="${nodeId}"]`);
  // Each test sets up what it needs (labels, versions, rollouts, agents answering or not), so that none
  // depends on the tests before it.
  const asOperator = (method: string, path: string, body?: unknown) => hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
  const labelled = async (nodeId: string, labels: Record<string, string>) =>
    expect((await asOperator('PUT', `/api/v1/nodes/${nodeId}/labels`, { labels })).status).toBe(200);
  const version = async (content: string): Promise<string> => (await asOperator('POST', '/api/v1/config-versions', { content, format: 'yaml' })).body.config_version;
  /** The agents answer their attempts (edge-3 cannot run the stream "broken": its start fails for good). */
  const answering = () => {
    if (serving.length > 0) return;
    serving = agents.map((a) => serveAttempts(a, (x) => (x.stream_id === 'broken' ? { failure_class: 'permanent', code: 'bad_spec', message: 'no such binary' } : null)));
  };
  /** The agents stop answering: a rollout stays in its first batch while a test watches or steers it. */
  const silent = async () => {
    await Promise.all(serving.map((s) => s.stop()));
    serving = [];
  };

  test('the Hub serves the console at / and at client routes, without shadowing the API or operations', async () => {
    const index = await fetch(`${hub.url}/fleet`, { headers: { accept: 'text/html' } });
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await index.text()).toContain('<div id="root">');
    expect((await hub.call('GET', '/api/v1/nope', { headers: { accept: 'text/html' } })).body).toMatchObject({ code: 'not_found' });
    expect((await hub.call('GET', '/healthz', { token: null })).body).toEqual({ status: 'ok' });
    expect((await fetch(`${hub.url}/assets/missing.js`)).status).toBe(404);
  });

  test('an operator signs in with a bearer token, edits labels with the 16 × 63 rules checked as they type, drains and undrains', async () => {
    await labelled('edge-1', {});
    // Online means reported within the last 30 s: the reports of beforeAll may be older on a loaded machine.
    for (const a of agents) await a.report();
    const page = await browser.tab();
    await page.goto(hub.url);
    await capture(page, 'sign-in');
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    expect(page.url()).not.toContain(TOKENS.operator);
    expect(await page.evaluate(() => sessionStorage.getItem('fleetplane.session'))).toContain(TOKENS.operator);
    await row(page, 'edge-1').getByText('online').waitFor();
    // B3: the global mode, and where it comes from.
    await page.getByText("Reconciliation mode: configuration (the Hub's configuration file); a node override wins on that node.").waitFor();

    await row(page, 'edge-1').getByRole('button', { name: 'Edit labels of edge-1' }).click();
    await page.getByRole('button', { name: 'Add label' }).click();
    await page.getByLabel('Key 1').fill('k'.repeat(64));
    await page.getByLabel('Value 1').fill('prod');
    await page.getByText('Key is 64 characters long: at most 63').waitFor();
    expect(await page.getByRole('button', { name: 'Save labels' }).isDisabled()).toBe(true);
    await capture(page, 'fleet-label-editor');
    await page.getByLabel('Key 1').fill('env');
    await page.getByRole('button', { name: 'Add label' }).click();
    await page.getByLabel('Key 2').fill('env');
    await page.getByLabel('Value 2').fill('x');
    await page.getByText('Key "env" is used twice: keys are unique').waitFor();
    await page.getByRole('button', { name: 'Remove label 2 (env)' }).click();
    await page.getByRole('button', { name: 'Save labels' }).click();
    await page.getByText('Saved the labels of edge-1.').waitFor();
    await row(page, 'edge-1').getByText('env=prod').waitFor();
    expect((await hub.call('GET', '/api/v1/nodes/edge-1')).body.labels).toEqual({ env: 'prod' });

    await row(page, 'edge-3').getByRole('button', { name: 'Drain edge-3' }).click();
    await row(page, 'edge-3').getByText('draining').waitFor();
    expect((await hub.call('GET', '/api/v1/nodes/edge-3')).body.maintenance).toBe('draining');
    await capture(page, 'fleet');
    await row(page, 'edge-3').getByRole('button', { name: 'Undrain edge-3' }).click();
    await row(page, 'edge-3').getByText('active').waitFor();
    await page.close();
  });

  test('an operator creates a rollout by selector, previews the nodes it resolves to, and watches it converge', async () => {
    await silent();
    await labelled('edge-1', { env: 'prod' });
    const v = await version('workers: 4\n');
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByRole('link', { name: 'Rollouts' }).click();
    await page.getByRole('button', { name: 'New rollout' }).click();
    await page.getByLabel('Selector key 1').fill('env');
    await page.getByLabel('Selector value 1').fill('prod');
    await page.getByTestId('new-rollout-preview').getByText('Resolves now to 2 nodes: edge-1, edge-2').waitFor();
    await page.getByLabel('Selector value 1').fill('staging');
    await page.getByText('No node carries these labels now').waitFor();
    await page.getByLabel('Selector value 1').fill('prod');
    await page.getByLabel('Configuration version').selectOption(v);
    await page.getByLabel('Batch size').fill('1');
    // The approval gate is off on this Hub: the form says nothing of approval (issue 22).
    expect(await page.getByRole('form', { name: 'New rollout' }).getByRole('note').count()).toBe(0);
    await page.getByRole('button', { name: 'Create rollout' }).click();
    const notice = await page.getByText(/^Created rollout /).textContent();
    const rolloutId = notice!.replace(/^Created rollout (\S+)\.$/, '$1');
    const card = page.locator(`article[data-rollout="${rolloutId}"]`);
    await card.getByTestId('progress').getByText('Batch 1 of 2').waitFor();
    // Targets' batches are counted from 1 too, as the CLI counts them (issue 22). The page of targets is a read
    // of its own, after the rollout's: its second row is waited for.
    await card.locator('tbody tr').nth(1).waitFor();
    expect(await card.locator('tbody tr td:first-of-type').allTextContents()).toEqual(['1', '2']);
    await capture(page, 'rollouts-applying');

    answering();
    await card.getByTestId('progress').getByText('2/2 converged').waitFor({ timeout: 60_000 });
    await card.getByText('converged', { exact: true }).first().waitFor();
    const rollout = (await hub.call('GET', `/api/v1/rollouts/${rolloutId}`)).body;
    expect(rollout).toMatchObject({ state: 'converged', selector: { env: 'prod' }, created_by: 'bob' });
    expect(rollout.targets.map((x: { node_id: string }) => x.node_id)).toEqual(['edge-1', 'edge-2']);
    await capture(page, 'rollouts');
    await page.close();
  });

  test('the history page filters the log and answers why an attempt exists', async () => {
    // bob replaces edge-3's labels, and rolls a version out to it. The rollout opens the node's intent; its
    // attempt is queued by the node's reconcile job, which the test waits for. The rollout is then cancelled
    // before any agent answers, so that it holds the node from no other test.
    await labelled('edge-3', { env: 'dev', history: 'yes' });
    await silent();
    const created = await asOperator('POST', '/api/v1/rollouts', { config_version: await version('history: on\n'), targets: { nodes: ['edge-3'] } });
    expect(created.status).toBe(201);
    const intentId = created.body.targets[0].intent_id;
    await eventually(async () => {
      const queued = await t.pool.query(`SELECT 1 FROM events WHERE type = 'AttemptQueued' AND stream_id = $1`, [`intent:${intentId}`]);
      return queued.rowCount! > 0 ? true : undefined;
    }, 60_000);
    expect((await asOperator('POST', `/api/v1/rollouts/${created.body.rollout_id}/actions`, { action: 'cancel' })).body.state).toBe('cancelled');
    const { rows } = await t.pool.query<{ n: string }>(`SELECT count(*) n FROM events WHERE type = 'NodeLabelsReplaced' AND metadata->>'actor' = 'bob'`);
    const replaced = Number(rows[0]!.n);

    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByLabel('Actor').fill('bob');
    await page.getByLabel('Types').fill('NodeLabelsReplaced');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText(`${replaced} events, newest first`).waitFor();
    expect(await page.locator('tr[data-event-type="NodeLabelsReplaced"]').count()).toBe(replaced);
    await page.locator('tr[data-event-type]', { hasText: 'node:edge-3' }).first().waitFor();

    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Types').fill('AttemptQueued');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const queued = page.locator('tr[data-event-type="AttemptQueued"]', { hasText: `intent:${intentId}` });
    await queued.getByRole('button', { name: /^Why\?/ }).click();
    const why = page.getByRole('region', { name: /^Why attempt / });
    await why.getByText('rollout created', { exact: true }).waitFor();
    await why.getByText('queued', { exact: true }).waitFor();
    await capture(page, 'history');
    await page.close();
  });

  test('the streams page shows desired against observed state per node, and highlights a blocked intent', async () => {
    answering();
    await hub.call('PUT', '/api/v1/streams/ingest', {
      token: TOKENS.operator,
      body: { desired_state: 'running', spec: { command: 'node', args: ['worker.js'] }, placement: { nodes: ['edge-1', 'edge-2'], split: false } },
    });
    await hub.call('PUT', '/api/v1/streams/broken', {
      token: TOKENS.operator,
      body: { desired_state: 'running', spec: { command: 'missing' }, placement: { nodes: ['edge-3'], split: false } },
    });
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByRole('link', { name: 'Streams' }).click();
    await page.getByRole('heading', { name: /ingest: desired running at generation 1/ }).waitFor();
    await page.locator('tr', { hasText: 'edge-2' }).getByText('running · gen 1').nth(1).waitFor({ timeout: 60_000 });
    const blocked = page.locator('tr.highlight', { hasText: 'edge-3' });
    await blocked.getByText('blocked', { exact: true }).waitFor({ timeout: 60_000 });
    await blocked.getByText('permanent (bad_spec)').waitFor();
    // Issue 22: the blocked intent says what it waits on.
    await blocked.locator('[data-waiting="new_generation"]').getByText(/only a new generation resumes/).waitFor();
    expect(await page.locator('tr.highlight').count()).toBe(1);
    await capture(page, 'streams');
    await page.close();
  });

  test('an operator pauses, resumes and rolls back a rollout, and cancels the rollback, which still offers a rollback', async () => {
    await silent();
    const first = await version('workers: 5\n');
    const next = (await asOperator('POST', '/api/v1/config-versions', { content: 'workers: 6\n', format: 'yaml', parent: first })).body.config_version;
    const created = await hub.call('POST', '/api/v1/rollouts', { token: TOKENS.operator, body: { config_version: next, targets: { nodes: ['edge-1', 'edge-2'] }, batch_size: 1 } });
    expect(created.status).toBe(201);
    const id = created.body.rollout_id;
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByRole('link', { name: 'Rollouts' }).click();
    const card = page.locator(`article[data-rollout="${id}"]`);
    await card.getByRole('button', { name: 'Pause' }).click();
    await card.getByRole('button', { name: 'Resume' }).waitFor();
    expect((await hub.call('GET', `/api/v1/rollouts/${id}`)).body.state).toBe('paused');
    await card.getByRole('button', { name: 'Resume' }).click();
    await card.getByRole('button', { name: 'Pause' }).waitFor();
    await card.getByLabel('Roll back to').selectOption(first);
    await card.getByRole('button', { name: 'Roll back' }).click();
    await card.getByRole('heading').getByText('rolled back', { exact: true }).waitFor();
    const rollback = (await hub.call('GET', `/api/v1/rollouts/${id}`)).body.rolled_back_by;
    expect((await hub.call('GET', `/api/v1/rollouts/${rollback}`)).body).toMatchObject({ config_version: first, rollback_of: id });
    const rollbackCard = page.locator(`article[data-rollout="${rollback}"]`);
    await rollbackCard.getByRole('button', { name: 'Cancel' }).click();
    await rollbackCard.getByRole('heading').getByText('cancelled', { exact: true }).waitFor();
    expect((await hub.call('GET', `/api/v1/rollouts/${rollback}`)).body.state).toBe('cancelled');
    // G2: the cancelled rollback can itself be rolled back; the rolled-back rollout offers no rollback.
    expect(await rollbackCard.getByLabel('Roll back to').count()).toBe(1);
    expect(await card.getByLabel('Roll back to').count()).toBe(0);
    await page.close();
  });

  test('a viewer signs in with the keyboard alone, sees the fleet and rollouts, and is offered no action', async () => {
    // A rollout to see, cancelled before any agent answers: it holds no node from the other tests.
    await silent();
    const shown = await asOperator('POST', '/api/v1/rollouts', { config_version: await version('viewer: on\n'), targets: { nodes: ['edge-3'] } });
    expect(shown.status).toBe(201);
    expect((await asOperator('POST', `/api/v1/rollouts/${shown.body.rollout_id}/actions`, { action: 'cancel' })).body.state).toBe('cancelled');
    const page = await browser.tab();
    await page.goto(hub.url);
    await page.locator('#token:focus').waitFor();
    await page.keyboard.type(TOKENS.viewer);
    await page.keyboard.press('Enter');
    await page.getByTestId('who').filter({ hasText: 'audit' }).waitFor();
    await row(page, 'edge-1').waitFor();
    expect(await page.getByRole('button', { name: /Edit labels|Drain/ }).count()).toBe(0);
    await page.getByRole('link', { name: 'Rollouts' }).click();
    await page.getByRole('heading', { name: 'Recent rollouts' }).waitFor();
    await page.locator('article[data-rollout]').first().waitFor();
    expect(await page.getByRole('button', { name: /New rollout|Pause|Cancel|Roll back/ }).count()).toBe(0);
    // An ended rollout's card counts its targets; its targets come from the rollout itself, on request.
    const ended = page.locator(`article[data-rollout="${shown.body.rollout_id}"]`);
    await ended.getByTestId('progress').getByText('0/1 converged, 1 cancelled').waitFor();
    expect(await ended.locator('tr[data-target]').count()).toBe(0);
    await ended.getByRole('button', { name: 'Show the 1 target' }).click();
    await ended.locator('tr[data-target="edge-3"]').getByText('cancelled').waitFor();
    await page.close();
  });
  test('G2 a paused rollout older than the newest page of rollouts still shows on the Rollouts page, saying why it waits', async () => {
    await silent();
    const paused = (await asOperator('POST', '/api/v1/rollouts', { config_version: await version('paused long ago: yes\n'), targets: { nodes: ['edge-3'] } })).body.rollout_id;
    expect((await asOperator('POST', `/api/v1/rollouts/${paused}/actions`, { action: 'pause' })).body.state).toBe('paused');
    // Twenty newer rollouts, each cancelled at once: the newest page (20) holds none but them.
    const v = await version('newer: yes\n');
    for (let i = 0; i < 20; i++) {
      const created = await asOperator('POST', '/api/v1/nodes/edge-1/configuration/apply', { config_version: v });
      expect((await asOperator('POST', `/api/v1/rollouts/${created.body.rollout_id}/actions`, { action: 'cancel' })).status).toBe(200);
    }
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByRole('link', { name: 'Rollouts' }).click();
    const card = page.locator(`article[data-rollout="${paused}"]`);
    await card.getByText('Paused: operator').waitFor();
    await card.getByRole('button', { name: 'Resume' }).waitFor();
    await page.close();
    expect((await asOperator('POST', `/api/v1/rollouts/${paused}/actions`, { action: 'cancel' })).status).toBe(200);
  });
});
