import { stop } from '../interruptible.ts';

/** Resolves true once `check` holds (asked every `everyMs`), false after `ms` or on Ctrl-C. */
export async function until(check: () => boolean | Promise<boolean>, ms: number, everyMs = 20): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!stop.requested) {
    if (await check()) return true;
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return false;
}
