import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM } from './browser.ts';

/**
 * Builds the web console once per run before the browser tests use it, so they test the sources as they
 * are, not a bundle left by an earlier `npm ci`. Skipped where the browser tests skip.
 */
export function buildConsole(): void {
  if (!existsSync(CHROMIUM)) return;
  const root = join(__dirname, '../..');
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: join(root, 'packages/console'), stdio: 'pipe' });
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`building the console failed:\n${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}`);
  }
}
