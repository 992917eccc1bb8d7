import { ConfigFile } from '../../packages/hub/src/config.ts';
import { capture, describeInBrowser, launchBrowser, signIn, type Browser } from '../support/browser.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTestHub, TOKENS, type TestHub } from '../support/hub.ts';
import { startOpenIdProvider, type OpenIdProvider } from '../support/openid-provider.ts';

// Issue 23 item 1: "Sign in with SSO" in headless Chromium, through a real OpenID provider's login page
// (oidc-provider), authorization code with PKCE, back to the console signed in with the role the groups map to.

jest.setTimeout(120_000);

describeInBrowser('console: single sign-on', () => {
  let t: TestDatabase;
  let hub: TestHub;
  let provider: OpenIdProvider;
  let browser: Browser;

  beforeAll(async () => {
    t = await createTestDatabase();
    hub = await startTestHub(t.url);
    provider = await startOpenIdProvider({
      accounts: { dana: ['fleet-ops'], erin: ['staff', 'fleet-admins'] },
      clients: [{ client_id: 'fleetplane-console', redirect_uris: [`${hub.url}/sign-in/callback`] }],
    });
    // The issuer comes with a reload, as an operator adds one to a running Hub (SIGHUP).
    const file = hub.context.config.file;
    const { oidc } = ConfigFile.parse({
      control_api: { oidc: [{ name: 'corp', issuer: provider.issuer, audience: 'fleetplane-console', roles: { 'fleet-ops': 'operator', 'fleet-admins': 'admin' } }] },
    }).control_api;
    hub.reload({ ...file, control_api: { ...file.control_api, oidc } });
    browser = await launchBrowser();
  });
  afterEach(() => {
    expect(browser.errors).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await provider?.stop();
    await hub?.stop();
    await t?.drop();
  });

  async function signInWithSso(login: string) {
    const page = await browser.tab();
    await page.goto(hub.url);
    await capture(page, 'sso-sign-in');
    await page.getByRole('button', { name: 'Sign in with SSO (corp)' }).click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByTestId('who').filter({ hasText: `corp:${login}` }).waitFor();
    // The provider's development login page asks for a web font (this machine's network is closed) and a
    // favicon it lacks: its errors are not the console's.
    browser.errors.splice(0, browser.errors.length, ...browser.errors.filter((e) => !e.startsWith(provider.issuer)));
    return page;
  }

  it('signs in through the provider with PKCE and lands signed in with the role of its groups', async () => {
    const page = await signInWithSso('dana');
    expect(await page.getByTestId('who').textContent()).toContain('corp:dana (operator)');
    expect(new URL(page.url()).search).toBe('');
    // Another person, another browser: no session at the provider.
    await browser.context.clearCookies();
    const admin = await signInWithSso('erin');
    expect(await admin.getByTestId('who').textContent()).toContain('corp:erin (admin)');
    await capture(admin, 'sso-signed-in');
  });

  it('keeps the token form: a static credential signs in beside SSO', async () => {
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.operator, 'bob');
  });
});
