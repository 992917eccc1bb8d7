import type { Page } from 'playwright-core';
import { describeInBrowser, signIn } from '../support/browser.ts';
import { consoleSuite } from '../support/console-suite.ts';
import { eventually, TestAgent } from '../support/fleet.ts';
import { testConfig, TOKENS } from '../support/hub.ts';

// A large fleet in the console: the fleet page reads one page of nodes and their counts, never every node;
// it reloads them at most every couple of seconds however fast the fleet changes, one reload at a time; and a
// hidden tab reads nothing and, after a minute, holds no event stream either.

jest.setTimeout(300_000);

const NODES = 1000;

describeInBrowser('console: a large fleet', () => {
  const suite = consoleSuite({ config: testConfig(NODES) }, async (hub) => {
    for (let i = 0; i < NODES; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, NODES - i) }, (_, j) => new TestAgent(hub, `edge-${i + j + 1}`).register()));
    }
  });

  /** Every API request the page makes but its event stream, as `path?query`, and the event streams apart. */
  function recordRequests(page: Page) {
    const reads: string[] = [];
    const streams = { opened: 0, ended: 0 };
    let inFlight = 0;
    let most = 0;
    const isStream = (url: URL) => url.pathname === '/api/v1/events/stream';
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (isStream(url)) streams.opened += 1;
      else if (url.pathname.startsWith('/api/v1/')) {
        reads.push(`${url.pathname}${url.search}`);
        if (url.pathname === '/api/v1/nodes') most = Math.max(most, ++inFlight);
      }
    });
    const done = (r: { url(): string }) => {
      const url = new URL(r.url());
      if (isStream(url)) streams.ended += 1;
      else if (url.pathname === '/api/v1/nodes') inFlight -= 1;
    };
    page.on('requestfinished', done);
    page.on('requestfailed', done);
    return { reads, streams, most: () => most };
  }

  /** An operator labels edge-1 every 50 ms for `ms`: each change reaches the page's event stream. Answers the last wave. */
  async function relabel(ms: number, from: number): Promise<number> {
    const until = Date.now() + ms;
    let wave = from;
    while (Date.now() < until) {
      wave += 1;
      const r = await suite.hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { wave: String(wave) } } });
      expect(r.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return wave;
  }

  /**
   * Waits until edge-1's last label change is readable in the log. The event stream opens where the
   * commit-safe log ends (event-store/read-all.ts, `logEnd`): a change committed while an older transaction
   * anywhere on the server is still running (another suite's, on a shared server) is past that end, and the
   * stream delivers it after it opens, a second change to the page. Once the API reads it, it is before the end.
   */
  const labelsReadable = (wave: number) =>
    eventually(async () => {
      const r = await suite.hub.call('GET', '/api/v1/events?stream_id=node:edge-1&type=NodeLabelsReplaced&order=desc&limit=1', { token: TOKENS.viewer });
      return r.body.items[0]?.data.after.wave === String(wave) ? true : undefined;
    });

  const setHidden = (page: Page, hidden: boolean) =>
    page.evaluate(`(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${hidden ? 'hidden' : 'visible'}' });
      document.dispatchEvent(new Event('visibilitychange'));
    })()`);

  test('F1 the fleet page reads one page of nodes and their counts, at most every 2 s and one reload at a time, while the fleet changes continuously', async () => {
    const { hub, browser } = suite;
    const page = await browser.tab();
    const requests = recordRequests(page);
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByText(`Nodes 1–100 of ${NODES}`, { exact: true }).waitFor();
    // Online or not by now, every node is counted.
    await page.getByTestId('node-counts').getByText(new RegExp(`^${NODES} nodes: \\d+ online, \\d+ stale, \\d+ offline; 0 draining$`)).waitFor();
    // One page of 100, never the pages after it (the test's build runs React's StrictMode effects twice, and
    // the event stream's opening is a reload too).
    const first = requests.reads.filter((r) => r.startsWith('/api/v1/nodes?'));
    expect(first.length).toBeLessThanOrEqual(3);
    expect(new Set(first)).toEqual(new Set(['/api/v1/nodes?limit=100']));

    const before = requests.reads.length;
    const last = await relabel(10_000, 0);
    // The page still shows the last change, by a reload after the one it came during.
    await page.getByRole('list', { name: 'Labels of edge-1' }).getByText(`wave=${last}`).waitFor();
    const during = requests.reads.slice(before);
    expect(during.some((r) => r.includes('cursor='))).toBe(false);
    // About 200 changes in 10 s: at most one reload of its three reads every 2 s (and the one that shows the last).
    const reloads = during.filter((r) => r.startsWith('/api/v1/nodes?')).length;
    expect(reloads).toBeGreaterThanOrEqual(2);
    expect(reloads).toBeLessThanOrEqual(8);
    expect(during.length).toBeLessThanOrEqual(3 * 8);
    expect(requests.most()).toBe(1);
    await page.close();
  });

  test('F1 the fleet page pages and filters on the Hub: search, liveness, Next and Previous read one page each', async () => {
    const { hub, browser } = suite;
    const page = await browser.tab();
    const requests = recordRequests(page);
    await signIn(page, hub.url, TOKENS.viewer, 'audit');
    await page.getByText(`Nodes 1–100 of ${NODES}`, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText(`Nodes 101–200 of ${NODES}`, { exact: true }).waitFor();
    expect(requests.reads).toContainEqual(expect.stringMatching(/^\/api\/v1\/nodes\?limit=100&cursor=/));
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText(`Nodes 1–100 of ${NODES}`, { exact: true }).waitFor();

    await page.getByLabel('Node id contains').fill('edge-99');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    // edge-99 and edge-990 to edge-999.
    await page.getByText('Nodes 1–11 of 11', { exact: true }).waitFor();
    expect(page.url()).toBe(`${hub.url}/fleet?search=edge-99`);
    expect(requests.reads).toContainEqual('/api/v1/nodes?limit=100&search=edge-99');
    expect(requests.reads).toContainEqual('/api/v1/node-counts?search=edge-99');
    await page.getByLabel('Liveness').selectOption('offline');
    await page.getByText('No node matches these filters.').waitFor();
    await page.getByTestId('node-counts').getByText('0 nodes match').waitFor();

    // A link to one node shows it, wherever it falls in the fleet.
    await page.goto(`${hub.url}/fleet#node-edge-777`);
    await page.locator('tr[data-node="edge-777"]').waitFor();
    expect(requests.reads.some((r) => r.includes('cursor=') && !r.startsWith('/api/v1/nodes?limit=100&cursor='))).toBe(false);
    await page.close();
  });

  test('F1 a hidden tab reads nothing while the fleet changes, closes its event stream after a minute, and reloads once when shown', async () => {
    const { hub, browser } = suite;
    const page = await browser.tab();
    const requests = recordRequests(page);
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByText(`Nodes 1–100 of ${NODES}`, { exact: true }).waitFor();
    // Whatever the first load set off has ended.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await setHidden(page, true);
    const before = requests.reads.length;
    const opened = requests.streams.opened;
    const ended = requests.streams.ended;
    let wave = await relabel(5_000, 1000);
    // Past the periodic refresh too.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    expect(requests.reads.slice(before)).toEqual([]);
    expect(requests.streams).toEqual({ opened, ended });
    // A minute hidden: the event stream is closed, and nothing is opened again while hidden.
    await new Promise((resolve) => setTimeout(resolve, 50_000));
    wave = await relabel(1_000, wave);
    await labelsReadable(wave);
    expect(requests.streams).toEqual({ opened, ended: ended + 1 });
    expect(requests.reads.slice(before)).toEqual([]);

    await setHidden(page, false);
    await page.getByRole('list', { name: 'Labels of edge-1' }).getByText(`wave=${wave}`).waitFor();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(requests.streams.opened).toBe(opened + 1);
    // One reload of what the page shows: its page of nodes, their counts and the reconciliation mode.
    expect(requests.reads.slice(before).sort()).toEqual(['/api/v1/node-counts', '/api/v1/nodes?limit=100', '/api/v1/settings/reconciliation']);
    await page.close();
  });

  test('F1 G1 the Rollouts page reads no node list and the targets of a few small live rollouts only; its form asks the Hub for a page of nodes', async () => {
    const { hub, browser } = suite;
    const asOperator = (method: string, path: string, body?: unknown) => hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
    const version = (await asOperator('POST', '/api/v1/config-versions', { content: 'scale: yes\n', format: 'yaml' })).body.config_version;
    // 30 live rollouts of one node each (no agent answers, so they stay applying), and one of 250 nodes.
    for (let i = 0; i < 30; i += 1) expect((await asOperator('POST', '/api/v1/rollouts', { config_version: version, targets: { nodes: [`edge-${500 + i}`] } })).status).toBe(201);
    const nodes = Array.from({ length: 250 }, (_, i) => `edge-${600 + i}`);
    const large = (await asOperator('POST', '/api/v1/rollouts', { config_version: version, targets: { nodes }, batch_size: 50 })).body.rollout_id;

    const page = await browser.tab();
    const requests = recordRequests(page);
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByRole('link', { name: 'Rollouts' }).click();
    await page.locator(`article[data-rollout="${large}"]`).getByRole('button', { name: 'Show the 250 targets' }).waitFor();
    // Two reloads' time.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const reads = requests.reads.filter((r) => !r.startsWith('/api/v1/auth') && r !== '/api/v1/whoami' && !r.startsWith('/api/v1/node-counts') && !r.startsWith('/api/v1/nodes?limit=100') && r !== '/api/v1/settings/reconciliation');
    expect(reads.filter((r) => r.startsWith('/api/v1/nodes'))).toEqual([]);
    // No rollout is read with every target.
    expect(reads.filter((r) => /^\/api\/v1\/rollouts\/[^/?]+$/.test(r))).toEqual([]);
    const targetReads = reads.filter((r) => /^\/api\/v1\/rollouts\/[^/?]+\/targets\?/.test(r));
    // A page of the first 10 live rollouts' targets, read once or twice each (StrictMode, the stream's opening, a reload).
    expect(new Set(targetReads).size).toBe(10);
    expect(targetReads.filter((r) => r.startsWith(`/api/v1/rollouts/${large}/`))).toEqual([]);
    expect(await page.locator('article[data-rollout] tr[data-target]').count()).toBe(10);

    // The large one's targets on request.
    await page.locator(`article[data-rollout="${large}"]`).getByRole('button', { name: 'Show the 250 targets' }).click();
    await page.locator(`article[data-rollout="${large}"] tr[data-target="edge-600"]`).waitFor();
    await page.locator(`article[data-rollout="${large}"]`).getByText('Targets 1–50 of 250').waitFor();
    expect(await page.locator(`article[data-rollout="${large}"] tr[data-target]`).count()).toBe(50);

    // The form: a selector's preview is counted on the Hub, explicit nodes are found there.
    const before = requests.reads.length;
    await page.getByRole('button', { name: 'New rollout' }).click();
    await page.getByLabel('Selector key 1').fill('wave');
    await page.getByLabel('Selector value 1').fill('none');
    await page.getByText('No node carries these labels now').waitFor();
    await page.getByLabel('Explicit nodes').check();
    const form = page.getByRole('form', { name: 'New rollout' });
    await form.getByLabel('edge-1', { exact: true }).waitFor();
    expect(await form.locator('.node-picks input[type=checkbox]').count()).toBe(20);
    await form.getByLabel('Find nodes (text in the id)').fill('edge-99');
    await form.getByLabel('edge-999', { exact: true }).check();
    await form.getByRole('group', { name: 'Picked (1)' }).getByLabel('edge-999').waitFor();
    const formReads = requests.reads.slice(before).filter((r) => r.startsWith('/api/v1/node'));
    expect(formReads.some((r) => r.includes('cursor='))).toBe(false);
    expect(formReads).toContainEqual('/api/v1/nodes?limit=20&search=edge-99');
    expect(formReads).toContainEqual('/api/v1/node-counts?selector=wave%3Dnone');
    await page.close();
  });

  test('J4 History holds at most 500 events as new ones come, and Load older reads on from the oldest it kept', async () => {
    const { hub, browser } = suite;
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByText('100 events, newest first; new ones appear on top').waitFor();
    for (let i = 0; i < 600; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) => hub.call('PUT', `/api/v1/nodes/edge-${900 + j}/labels`, { token: TOKENS.operator, body: { labels: { history: String(i + j) } } })),
      );
      // Paced so that no read of what came since finds more than the page keeps (it would then start again
      // from the newest page: tested by the page's own reads, not here).
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Other work of the Hub (the rollouts above) may append after the last write: the page shows it anyway.
    const newest = (await hub.call('GET', '/api/v1/events?order=desc&limit=1', { token: TOKENS.viewer })).body.items[0];
    await page.locator('tbody tr[data-event-type]').getByText(new RegExp(`^#${newest.position}:`)).waitFor();
    await page.getByText('500 events, newest first; new ones appear on top').waitFor();
    expect(await page.locator('tbody tr[data-event-type]').count()).toBe(500);
    await page.getByRole('button', { name: 'Load older' }).click();
    await page.getByText('600 events, newest first; new ones appear on top').waitFor();
    const positions = (await page.locator('tbody tr[data-event-type] td:first-child a').allTextContents()).map((t) => Number(/#(\d+)/.exec(t)![1]));
    // Newest first, no event twice, none skipped where the kept ones end and the older page begins.
    const log: number[] = [];
    // In the log's order (commits), which concurrent writes make differ from their positions' order.
    for (let before = ''; !log.includes(positions.at(-1)!); ) {
      const page = (await hub.call('GET', `/api/v1/events?order=desc&limit=1000${before}`, { token: TOKENS.viewer })).body;
      log.push(...page.items.map((e: { position: number }) => e.position));
      if (page.next_cursor === null) break;
      before = `&before=${page.next_cursor}`;
    }
    const start = log.indexOf(positions[0]!);
    expect(positions).toEqual(log.slice(start, start + positions.length));
    await page.close();
  });

  test('A2 the Streams page reads a page of 20 streams, not every stream; a link to one stream reads that one alone', async () => {
    const { hub, browser } = suite;
    const ids = Array.from({ length: 45 }, (_, i) => `s-${String(i).padStart(2, '0')}`);
    for (const id of ids) {
      const r = await hub.call('PUT', `/api/v1/streams/${id}`, {
        token: TOKENS.operator,
        body: { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1', 'edge-2', 'edge-3'], split: false } },
      });
      expect(r.status).toBe(200);
    }
    const page = await browser.tab();
    const requests = recordRequests(page);
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByRole('link', { name: 'Streams' }).click();
    await page.getByRole('heading', { name: /^s-19: desired running/ }).waitFor();
    expect(await page.locator('article').count()).toBe(20);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('heading', { name: /^s-39: desired running/ }).waitFor();
    expect(await page.locator('article').count()).toBe(20);
    const lists = requests.reads.filter((r) => r.startsWith('/api/v1/streams'));
    expect(lists.every((r) => /^\/api\/v1\/streams\?limit=20(&cursor=s-19)?$/.test(r))).toBe(true);

    // A new page load (a shared link); the session stays in the tab.
    await page.goto(`${hub.url}/fleet`);
    await page.goto(`${hub.url}/streams#stream-s-44`);
    await page.getByRole('heading', { name: /^s-44: desired running/ }).waitFor();
    expect(await page.locator('article').count()).toBe(1);
    expect(requests.reads).toContainEqual('/api/v1/streams/s-44');
    await page.getByRole('button', { name: 'Show every stream' }).click();
    await page.getByRole('heading', { name: /^s-00: desired running/ }).waitFor();
    await page.close();
  });

  test('History reads the report rates at most every 30 s while the fleet changes continuously: each read counts every shown node\'s hour of reports', async () => {
    const { hub, browser } = suite;
    const page = await browser.tab();
    const requests = recordRequests(page);
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByTestId('report-rates').locator('li[data-node="edge-1"]').waitFor();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const before = requests.reads.length;
    await relabel(10_000, 5000);
    const during = requests.reads.slice(before);
    // The events themselves are read on as they come; the rates are not read again.
    expect(during.filter((r) => r.startsWith('/api/v1/events?')).length).toBeGreaterThanOrEqual(2);
    expect(during.filter((r) => r.startsWith('/api/v1/report-rates'))).toEqual([]);
    await page.close();
  });
});
