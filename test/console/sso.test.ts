import { ConfigFile } from '../../packages/hub/src/config.ts';
import { capture, describeInBrowser, launchBrowser, signIn, type Browser } from '../support/browser.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTestHub, TOKENS, type TestHub } from '../support/hub.ts';
import { startOpenIdProvider, type OpenIdProvider } from '../support/openid-provider.ts';
import { freePort } from '../support/ports.ts';

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

  it('keeps the token form: a static credential signs in beside SSO; an expired ID token pasted there is refused, saying so', async () => {
    const page = await browser.tab();
    await signIn(page, hub.url, TOKENS.operator, 'bob');
    const expired = await browser.tab();
    await expired.goto(hub.url);
    const past = Math.floor(Date.now() / 1000) - 60;
    await expired.getByLabel('Bearer token').fill(await provider.sign({ sub: 'dana', aud: 'fleetplane-console', groups: ['fleet-ops'], iat: past - 600, exp: past }));
    await expired.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expired.getByRole('alert').filter({ hasText: 'the token of issuer corp has expired' }).waitFor();
    // The Hub answered 401: the browser logs the failed request, which is the refusal this test asked for.
    browser.errors.splice(0, browser.errors.length, ...browser.errors.filter((e) => !e.includes('401 (Unauthorized)')));
  });

  it('offers an issuer it cannot reach disabled, saying why', async () => {
    const file = hub.context.config.file;
    const unreachable = { ...file.control_api.oidc[0]!, name: 'lab', issuer: `http://localhost:${await freePort()}` };
    hub.reload({ ...file, control_api: { ...file.control_api, oidc: [...file.control_api.oidc, unreachable] } });
    const page = await browser.tab();
    await page.goto(hub.url);
    const button = page.getByRole('button', { name: 'Sign in with SSO (lab)' });
    await button.waitFor();
    expect(await button.isDisabled()).toBe(true);
    expect(await page.getByRole('region', { name: 'Single sign-on' }).textContent()).toContain('cannot be reached');
    expect(await page.getByRole('button', { name: 'Sign in with SSO (corp)' }).isEnabled()).toBe(true);
    await capture(page, 'sso-issuer-unreachable');
  });
});
