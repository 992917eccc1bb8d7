import { FLEET_EVENT_TYPES } from '@fleetplane/core';
import type { Page } from 'playwright-core';
import { capture, describeInBrowser, signIn } from '../support/browser.ts';
import { consoleSuite } from '../support/console-suite.ts';
import { TestAgent } from '../support/fleet.ts';
import { testConfig, TOKENS } from '../support/hub.ts';

// Issue 19 (history stays readable) in the web console: History leaves out the reports that repeated their
// node's last state, shows each node's report rate in their place, and shows every report when asked.
// Issue 22 item 5: newest first, filters and the selected event in the URL, full correlation ids, real types.
// Screenshots go to test-artifacts/console/.

jest.setTimeout(120_000);

describeInBrowser('console: history without heartbeats', () => {
  let edge1: TestAgent;

  /** Reports `times` times; the reports numbered in `changing` change what the node runs. */
  async function reports(agent: TestAgent, times: number, changing: number[] = []): Promise<void> {
    for (let i = 0; i < times; i++) {
      if (changing.includes(agent.seq + 1)) agent.streams.set(`s${agent.seq + 1}`, { stream_id: `s${agent.seq + 1}`, generation: 1, state: 'running' });
      expect((await agent.report()).body.accepted).toBe(true);
    }
  }

  const suite = consoleSuite({ config: testConfig(2) }, async (hub) => {
    edge1 = new TestAgent(hub, 'edge-1');
    const edge2 = new TestAgent(hub, 'edge-2');
    for (const a of [edge1, edge2]) expect((await a.register()).status).toBe(200);
    // edge-1: 6 reports, the 1st and the 4th changed; edge-2: 3 reports, the first changed (every first one does).
    await reports(edge1, 6, [4]);
    await reports(edge2, 3);
  });

  const reportRows = (page: Page) => page.locator('tr[data-event-type="NodeReported"]');
  /** The sequence numbers of the reports History shows, per node, in order. */
  const shownReports = (page: Page) =>
    reportRows(page).evaluateAll((rows) =>
      rows.map((r) => `${r.querySelectorAll('td')[3]!.textContent} ${JSON.parse(r.querySelector('pre')!.textContent!).seq}`),
    );
  const rates = (page: Page) => page.getByTestId('report-rates');

  test('History leaves repeated reports out, with each node’s report rate in their place, and shows every report on demand', async () => {
    const { hub, browser } = suite;
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
    // Two registrations, 11 reports, and the database's identity the Hub recorded at its first start.
    await page.getByText('14 events, newest first').waitFor();
    expect(await shownReports(page)).toEqual(
      [...[1, 2, 3, 4, 5, 6].map((s) => `node:edge-1 ${s}`), ...[1, 2, 3].map((s) => `node:edge-2 ${s}`), 'node:edge-1 7', 'node:edge-1 8'].reverse(),
    );
    expect(await page.getByLabel('Reports').inputValue()).toBe('all');
    expect(await rates(page).count()).toBe(0);
    await page.close();
  });

  test("History on a node's stream shows that node's rate; reports=None leaves every report out", async () => {
    const { hub, browser } = suite;
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

  /** The positions of the rows shown, in order. */
  const positions = (page: Page) => page.locator('tr[data-event-type] td:first-child').evaluateAll((cells) => cells.map((c) => Number(c.textContent!.match(/#(\d+)/)![1])));
  const query = (page: Page) => new URL(page.url()).searchParams;

  test('issue 22: History is newest first; filters, order and the selected event live in the URL, through Back, Forward and reload', async () => {
    const { hub, browser } = suite;
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.viewer, 'audit');
    await page.getByRole('link', { name: 'History' }).click();
    // The caption reads "0 events" until the first page arrives.
    await page.getByText(/[1-9]\d* events, newest first/).waitFor();
    const shown = await positions(page);
    expect(shown.length).toBeGreaterThan(3);
    expect(shown).toEqual([...shown].sort((a, b) => b - a));

    await page.getByLabel('Types').fill('NodeRegistered');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('2 events, newest first').waitFor();
    expect(query(page).get('type')).toBe('NodeRegistered');
    await page.getByLabel('Stream').fill('node:edge-1');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('1 event, newest first').waitFor();
    expect(Object.fromEntries(query(page))).toEqual({ type: 'NodeRegistered', stream_id: 'node:edge-1' });

    // Back: the filters before, in the form too; Forward: the later ones again.
    await page.goBack();
    await page.getByText('2 events, newest first').waitFor();
    expect(await page.getByLabel('Stream').inputValue()).toBe('');
    expect(await page.getByLabel('Types').inputValue()).toBe('NodeRegistered');
    await page.goForward();
    await page.getByText('1 event, newest first').waitFor();
    expect(await page.getByLabel('Stream').inputValue()).toBe('node:edge-1');

    // Selecting an event shows it in full and names it in the URL; a reload keeps filters and selection.
    const registered = (await hub.call('GET', '/api/v1/events?stream_id=node:edge-1&type=NodeRegistered', { token: TOKENS.viewer })).body.items[0];
    await page.getByRole('link', { name: `#${registered.position}` }).click();
    const detail = page.getByRole('region', { name: `Event ${registered.position}` });
    await detail.getByText(registered.metadata.correlation_id).waitFor();
    expect(query(page).get('event')).toBe(registered.cursor);
    await page.reload();
    await detail.getByText(registered.metadata.correlation_id).waitFor();
    expect(await page.getByLabel('Stream').inputValue()).toBe('node:edge-1');
    expect(await page.locator('tr.selected').getAttribute('data-event-type')).toBe('NodeRegistered');
    await capture(page, 'history-selected');
    await page.goBack();
    await page.getByText('1 event, newest first').waitFor();
    expect(await detail.count()).toBe(0);

    // An event the filters leave out still opens from its link, above the list.
    await page.goto(`${hub.url}/history?stream_id=node:edge-2&event=${registered.cursor}`);
    await detail.getByText('node:edge-1').waitFor();
    expect(await positions(page)).not.toContain(registered.position);

    // Oldest first, by choice, kept in the URL.
    await page.getByLabel('Order').selectOption('oldest');
    await page.getByText(/\d+ events?, oldest first/).waitFor();
    expect(query(page).get('order')).toBe('oldest');
    // Clear empties the filters and keeps the order.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText(/\d+ events, oldest first/).waitFor();
    expect(page.url()).toBe(`${hub.url}/history?order=oldest`);
    await page.close();
  });

  test('issue 22: correlation ids are shown in full and copy on click; type suggestions are the real event types', async () => {
    const { hub, browser } = suite;
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: hub.url });
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.viewer, 'audit');
    await page.goto(`${hub.url}/history?stream_id=node:edge-2&type=NodeRegistered`);
    const registered = (await hub.call('GET', '/api/v1/events?stream_id=node:edge-2&type=NodeRegistered', { token: TOKENS.viewer })).body.items[0];
    const row = page.locator('tr[data-event-type="NodeRegistered"]');
    const id = row.getByTitle('Copy the correlation id');
    expect(await id.locator('span').first().innerText()).toBe(registered.metadata.correlation_id);
    await id.click();
    await row.getByRole('status').getByText('Copied').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(registered.metadata.correlation_id);
    expect(registered.metadata.correlation_id).toMatch(/^[0-9a-f-]{36}$/);

    // The suggestions are every type the Hub records, each completing the list typed so far.
    const suggestions = () => page.getByTestId('event-types').locator('option').evaluateAll((os) => os.map((o) => o.getAttribute('value')));
    await page.getByLabel('Types').fill('');
    expect(await suggestions()).toEqual([...FLEET_EVENT_TYPES]);
    await page.getByLabel('Types').fill('AttemptFailed,Int');
    expect(await suggestions()).toEqual(FLEET_EVENT_TYPES.filter((t) => t !== 'AttemptFailed').map((t) => `AttemptFailed,${t}`));
    const placeholder = await page.getByLabel('Types').getAttribute('placeholder');
    for (const named of placeholder!.replace(/^.*e\.g\. /, '').split(',')) expect(FLEET_EVENT_TYPES).toContain(named);
    // A type that does not exist is named as such, with the ones that do.
    await page.getByLabel('Types').fill('LabelsReplaced');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('note').getByText(/^No event has the type LabelsReplaced: the types are NodeRegistered, NodeLabelsReplaced/).waitFor();
    await capture(page, 'history-types');
    await page.close();
  });
});
