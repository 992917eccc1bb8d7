import { run } from '../../packages/hub/src/cli/run.ts';

export interface CliResult {
  code: number;
  out: string;
  err: string;
  /** stdout as the one JSON document `--json` prints. */
  json(): any;
  /** stdout as JSON lines. */
  lines(): any[];
}

/**
 * Runs `fleetplane <args>` in this process, as the bin does, with stdout and stderr captured and the
 * environment given (nothing of the test process's own leaks in).
 */
export async function fleetplane(args: string[], env: Record<string, string>, signal: AbortSignal = new AbortController().signal): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await run(args, { out: (t) => void (out += t), err: (t) => void (err += t), env, signal });
  return {
    code,
    out,
    err,
    json: () => JSON.parse(out),
    lines: () =>
      out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l)),
  };
}
