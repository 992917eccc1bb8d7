import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium: .ci/run installs it; tests that need it skip, saying why, where it is absent. */
export const CHROMIUM = '/usr/bin/chromium';

/** Where the console tests save a screenshot of every page they visit (kept by CI as artifacts). */
export const SCREENSHOTS = join(__dirname, '../../test-artifacts/console');

/** `describe`, or `describe.skip` with a message when the browser is not installed. */
export function describeInBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) return describe(name, body);
  process.stderr.write(`skipping "${name}": ${CHROMIUM} is absent (apt-get install -y chromium)\n`);
  describe.skip(name, body);
}

export interface Browser {
  context: BrowserContext;
  /** A new tab (its own sessionStorage, so its own signed-in user) that records console errors. */
  tab(): Promise<Page>;
  /** Every console error and uncaught exception any tab saw. */
  errors: string[];
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile and no background traffic (this machine's network is closed). */
export async function launchBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'fleetplane-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const errors: string[] = [];
  await mkdir(SCREENSHOTS, { recursive: true });
  return {
    context,
    errors,
    async tab() {
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
      return page;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Signs in on the console at `url` with a bearer token, and waits for the signed-in header. */
export async function signIn(page: Page, url: string, token: string, as: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Bearer token').fill(token);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByTestId('who').filter({ hasText: as }).waitFor();
}

/**
 * Saves a screenshot of the page as `<name>.png`, and fails if a form control on it has no accessible name
 * (no label, aria-label or text) that a screen reader could announce.
 */
export async function capture(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  // A string, evaluated in the page: this project's Node-side types have no DOM.
  const unnamed = await page.evaluate<string[]>(`[...document.querySelectorAll('input, select, textarea, button')]
    .filter((el) => !el.getAttribute('aria-label') && !el.labels?.length && !(el.tagName === 'BUTTON' && el.textContent.trim()))
    .map((el) => el.outerHTML.slice(0, 120))`);
  if (unnamed.length > 0) throw new Error(`controls without an accessible name on ${name}: ${unnamed.join(' ')}`);
}
