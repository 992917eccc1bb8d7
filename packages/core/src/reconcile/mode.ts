/** How far the Hub acts on drift (SPEC B): watch only, start/stop, or also configuration. */
export type Mode = 'observe' | 'lifecycle' | 'configuration';

export const MODES: readonly Mode[] = ['observe', 'lifecycle', 'configuration'];

export function effectiveMode(global: Mode, override: Mode | null): Mode {
  return override ?? global;
}

export function dispatchesLifecycle(mode: Mode): boolean {
  return mode !== 'observe';
}

export function dispatchesConfiguration(mode: Mode): boolean {
  return mode === 'configuration';
}
