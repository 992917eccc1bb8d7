import { describeInBrowser, signIn } from '../support/browser.ts';
import { consoleSuite } from '../support/console-suite.ts';
import { TestAgent } from '../support/fleet.ts';
import { testConfig, TOKENS } from '../support/hub.ts';

// A large fleet in the console: a page reloads its lists on every change of the fleet, and a list of many
// pages takes longer to load than changes take to come. Reloads must not pile up on each other.

jest.setTimeout(180_000);

const NODES = 1000;

describeInBrowser('console: a large fleet', () => {
  const suite = consoleSuite({ config: testConfig(NODES) }, async (hub) => {
    for (let i = 0; i < NODES; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, NODES - i) }, (_, j) => new TestAgent(hub, `edge-${i + j + 1}`).register()));
    }
  });

  test('F1 the fleet page loads its node list one reload at a time while the fleet changes faster than a reload takes', async () => {
    const { hub, browser } = suite;
    const page = await browser.tab();
    let inFlight = 0;
    let most = 0;
    let loads = 0;
    const lists = (url: string) => new URL(url).pathname === '/api/v1/nodes';
    page.on('request', (r) => {
      if (!lists(r.url())) return;
      inFlight += 1;
      most = Math.max(most, inFlight);
      if (!new URL(r.url()).searchParams.has('cursor')) loads += 1;
    });
    const done = (r: { url(): string }) => {
      if (lists(r.url())) inFlight -= 1;
    };
    page.on('requestfinished', done);
    page.on('requestfailed', done);
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    await page.getByText(`${NODES} nodes`, { exact: true }).waitFor();

    // An operator labels nodes one after another, for five seconds: each change reaches the page.
    const until = Date.now() + 5_000;
    let last = 0;
    while (Date.now() < until) {
      last += 1;
      const r = await hub.call('PUT', `/api/v1/nodes/edge-${last}/labels`, { token: TOKENS.operator, body: { labels: { wave: String(last) } } });
      expect(r.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The page still shows the last change, by a reload after the one it came during.
    await page.getByRole('list', { name: `Labels of edge-${last}` }).getByText(`wave=${last}`).waitFor();
    expect(loads).toBeGreaterThanOrEqual(2);
    expect(most).toBe(1);
    await page.close();
  });
});
