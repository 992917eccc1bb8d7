import type { Page } from 'playwright-core';
import { capture, describeInBrowser, launchBrowser, signIn, type Browser } from '../support/browser.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TestAgent } from '../support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../support/hub.ts';

// Issue 19 (history stays readable) in the web console: History leaves out the reports that repeated their
// node's last state, shows each node's report rate in their place, and shows every report when asked.
// Screenshots go to test-artifacts/console/.

jest.setTimeout(120_000);

describeInBrowser('console: history without heartbeats', () => {
  let t: TestDatabase;
  let hub: TestHub;
  let browser: Browser;
  let edge1: TestAgent;

  /** Reports `times` times; the reports numbered in `changing` change what the node runs. */
  async function reports(agent: TestAgent, times: number, changing: number[] = []): Promise<void> {
    for (let i = 0; i < times; i++) {
      if (changing.includes(agent.seq + 1)) agent.streams.set(`s${agent.seq + 1}`, { stream_id: `s${agent.seq + 1}`, generation: 1, state: 'running' });
      expect((await agent.report()).body.accepted).toBe(true);
    }
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    hub = await startTestHub(t.url, { config: testConfig(2) });
    edge1 = new TestAgent(hub, 'edge-1');
    const edge2 = new TestAgent(hub, 'edge-2');
    for (const a of [edge1, edge2]) expect((await a.register()).status).toBe(200);
    // edge-1: 6 reports, the 1st and the 4th changed; edge-2: 3 reports, the first changed (every first one does).
    await reports(edge1, 6, [4]);
    await reports(edge2, 3);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await hub?.stop();
    await t?.drop();
  });
  afterEach(() => {
    expect(browser.errors).toEqual([]);
  });

  const reportRows = (page: Page) => page.locator('tr[data-event-type="NodeReported"]');
  /** The sequence numbers of the reports History shows, per node, in order. */
  const shownReports = (page: Page) =>
    reportRows(page).evaluateAll((rows) =>
      rows.map((r) => `${r.querySelectorAll('td')[3]!.textContent} ${JSON.parse(r.querySelector('pre')!.textContent!).seq}`),
    );
  const rates = (page: Page) => page.getByTestId('report-rates');

  test('History leaves repeated reports out, with each node’s report rate in their place, and shows every report on demand', async () => {
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.viewer, 'audit');
    await page.getByRole('link', { name: 'History' }).click();
    await rates(page).locator('li[data-node="edge-2"]').waitFor();
    // Newest first (issue 22).
    expect(await shownReports(page)).toEqual(['node:edge-2 1', 'node:edge-1 4', 'node:edge-1 1']);
    expect(await page.getByLabel('Reports').inputValue()).toBe('changed');
    expect(await rates(page).locator('li[data-node="edge-1"]').textContent()).toMatch(/^edge-1: 6 reports in the last hour, 2 changed; \d+ in the last minute.*; last #6 at /);
    expect(await rates(page).locator('li[data-node="edge-2"]').textContent()).toMatch(/^edge-2: 3 reports in the last hour, 1 changed; .*; last #3 at /);
    await capture(page, 'history-reports');

    // Live: a repeated report stays out, the changed one after it comes in, on top.
    await reports(edge1, 2, [8]);
    await reportRows(page).filter({ hasText: 'node:edge-1' }).nth(2).waitFor();
    expect(await shownReports(page)).toEqual(['node:edge-1 8', 'node:edge-2 1', 'node:edge-1 4', 'node:edge-1 1']);

    await rates(page).getByRole('button', { name: 'Show every report' }).click();
    await page.getByText('13 events, newest first').waitFor();
    expect(await shownReports(page)).toEqual(
      [...[1, 2, 3, 4, 5, 6].map((s) => `node:edge-1 ${s}`), ...[1, 2, 3].map((s) => `node:edge-2 ${s}`), 'node:edge-1 7', 'node:edge-1 8'].reverse(),
    );
    expect(await page.getByLabel('Reports').inputValue()).toBe('all');
    expect(await rates(page).count()).toBe(0);
    await page.close();
  });

  test("History on a node's stream shows that node's rate; reports=None leaves every report out", async () => {
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.viewer, 'audit');
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByLabel('Stream').fill('node:edge-2');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('2 events, newest first').waitFor();
    expect(await shownReports(page)).toEqual(['node:edge-2 1']);
    await rates(page).locator('li[data-node="edge-2"]').waitFor();
    expect(await rates(page).locator('li').count()).toBe(1);

    await page.getByLabel('Reports').selectOption('none');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('1 event, newest first').waitFor();
    expect(await reportRows(page).count()).toBe(0);
    await rates(page).getByText('Reports are left out.').waitFor();
    await page.close();
  });
});
