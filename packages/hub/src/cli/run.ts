import { isHubAddress } from '@fleetplane/core';
import { parse, type OptionDef, type Parsed } from './args.ts';
import type { Command } from './command.ts';
import { allCommands } from './commands/all.ts';
import { CliError, EXIT, usageError } from './exit.ts';
import { HubClient, HubError } from './hub-client.ts';
import type { Io } from './io.ts';
import { nextStep } from './next-step.ts';
import { shown } from './output.ts';
import { version } from '../version.ts';
import { proxiedDispatcher } from '../egress.ts';
import { trustedCa } from '../tls.ts';

const HUB_OPTIONS: Record<string, OptionDef> = {
  hub: { type: 'string', value: 'URL', help: 'the Hub (FLEETPLANE_HUB, default http://localhost:8080)' },
  token: { type: 'string', value: 'TOKEN', help: 'bearer token (FLEETPLANE_TOKEN)' },
  ca: { type: 'string', value: 'FILE', help: "verify an https:// Hub against this CA (PEM) instead of the system's (FLEETPLANE_CA)" },
};
const COMMON_OPTIONS: Record<string, OptionDef> = {
  json: { type: 'boolean', help: 'machine output: JSON on stdout, one document a line' },
  help: { type: 'boolean', help: 'this help' },
};

// Only alone, before any command: `fleetplane --version`.
const VERSION_OPTION: Record<string, OptionDef> = { version: { type: 'boolean', help: 'the Fleetplane release' } };

const EXIT_CODES = `exit codes:
  0  ok
  1  the operation failed, or differences were found (verify, drift), or a watched rollout stopped short
  2  usage error
  3  the Hub refused the request (4xx); its error is printed as "code: message" on stderr
  4  the Hub or the database cannot be reached, or the Hub failed (5xx)`;

function optionLines(options: Readonly<Record<string, OptionDef>>): string {
  const rows = Object.entries(options).map(([name, o]) => [`${o.short ? `-${o.short}, ` : ''}--${name}${o.value ? ` ${o.value}` : ''}${o.multiple ? ' …' : ''}`, o.help] as const);
  const width = Math.max(...rows.map(([l]) => l.length));
  return rows.map(([l, h]) => `  ${l.padEnd(width)}  ${h}`).join('\n');
}

function commandHelp(c: Command): string {
  const own = Object.keys(c.options).length ? `\noptions:\n${optionLines(c.options)}\n` : '';
  const global = c.local ? COMMON_OPTIONS : { ...HUB_OPTIONS, ...COMMON_OPTIONS };
  return `usage: fleetplane ${c.path.join(' ')}${c.synopsis ? ` ${c.synopsis}` : ''}\n\n${c.summary}\n${c.details ? `\n${c.details}\n` : ''}${own}\nglobal options:\n${optionLines(global)}\n\n${EXIT_CODES}\n`;
}

function listing(commands: readonly Command[], prefix: readonly string[]): string {
  const rows = commands.map((c) => [`${c.path.join(' ')}${c.synopsis ? ` ${c.synopsis}` : ''}`, c.summary] as const);
  const width = Math.min(Math.max(...rows.map(([l]) => l.length)), 44);
  const lines = rows.map(([l, s]) => (l.length > width ? `  ${l}\n  ${''.padEnd(width)}  ${s}` : `  ${l.padEnd(width)}  ${s}`));
  return `usage: fleetplane ${prefix.length ? prefix.join(' ') + ' ' : ''}<command> [options]   (--help on any command)\n\ncommands:\n${lines.join('\n')}\n\nglobal options:\n${optionLines({ ...HUB_OPTIONS, ...COMMON_OPTIONS, ...VERSION_OPTION })}\n\n${EXIT_CODES}\n`;
}

/** The command named by the leading words (global options may come first), and the arguments left for it. */
function find(args: readonly string[]): { command: Command | null; words: string[]; rest: string[] } {
  const before: string[] = [];
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) {
    const takesValue = (args[i] === '--hub' || args[i] === '--token' || args[i] === '--ca') && i + 1 < args.length;
    before.push(...args.slice(i, takesValue ? i + 2 : i + 1));
    i += takesValue ? 2 : 1;
  }
  let best: Command | null = null;
  for (const c of allCommands) {
    if (c.path.every((w, k) => args[i + k] === w) && (!best || c.path.length > best.path.length)) best = c;
  }
  const words: string[] = [];
  for (let k = i; k < args.length && !args[k]!.startsWith('-') && words.length < 2; k++) words.push(args[k]!);
  return { command: best, words, rest: [...before, ...args.slice(i + (best?.path.length ?? 0))] };
}

/**
 * Runs `fleetplane <args>` and returns its exit code. Everything goes through `io`, so tests run the
 * very same code as the bin, in process.
 */
export async function run(args: readonly string[], io: Io): Promise<number> {
  const { command, words, rest } = find(args);
  const wantsHelp = rest.includes('--help') || rest.includes('-h');
  if (!command && words.length === 0 && rest.includes('--version')) {
    io.out(`fleetplane ${version}\n`);
    return EXIT.ok;
  }
  if (!command) {
    // No command, or a group without its subcommand (`rollouts`): list what there is. An unknown word: say so
    // in a few lines, with the nearest command.
    const group = allCommands.filter((c) => c.path[0] === words[0]);
    const named = group.length ? 1 : 0;
    if (words.length > named) {
      const guess = nearest(words.join(' '));
      io.err(`unknown command: ${words.join(' ')}\n${guess ? `did you mean: fleetplane ${guess}\n` : ''}\`fleetplane --help\` lists the commands\n`);
      return EXIT.usage;
    }
    const help = group.length ? listing(group, [words[0]!]) : listing(allCommands, []);
    if (wantsHelp) {
      io.out(help);
      return EXIT.ok;
    }
    io.err(help);
    return EXIT.usage;
  }
  if (wantsHelp) {
    io.out(commandHelp(command));
    return EXIT.ok;
  }
  try {
    const parsed = parse(rest, { ...command.options, ...(command.local ? {} : HUB_OPTIONS), ...COMMON_OPTIONS }, command.positionals);
    let client: HubClient | null = null;
    const hub = () => (client ??= hubClient(parsed, io.env));
    return await command.run({ io, json: parsed.flag('json'), hub }, parsed);
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    // A Hub's message may carry what a client sent it, and a proxy's answer anything.
    io.err(`${e instanceof HubError ? shown(e.message) : e.message}\n`);
    if (e instanceof HubError) {
      const next = nextStep(e.envelope);
      if (next) io.err(`next: ${next}\n`);
      if (e.envelope.correlation_id) io.err(`correlation_id: ${e.envelope.correlation_id}\n`);
    }
    if (e.exitCode === EXIT.usage) io.err(`usage: fleetplane ${command.path.join(' ')} ${command.synopsis}   (--help for more)\n`);
    return e.exitCode;
  }
}

/** The Hub named by --hub / FLEETPLANE_HUB, as --token / FLEETPLANE_TOKEN, verified against --ca / FLEETPLANE_CA. */
function hubClient(parsed: Parsed, env: Io['env']): HubClient {
  const url = parsed.string('hub') ?? env.FLEETPLANE_HUB ?? 'http://localhost:8080';
  // Refused before any request: a malformed address is a mistake in the command, not a Hub out of reach.
  if (!isHubAddress(url)) {
    throw usageError(`${parsed.string('hub') !== undefined ? '--hub' : 'FLEETPLANE_HUB'} ${url} is not a Hub address: give http://HOST:PORT or https://HOST:PORT`);
  }
  const ca = parsed.string('ca') ?? env.FLEETPLANE_CA;
  if (ca && !url.startsWith('https://')) throw usageError(`--ca is given but the Hub ${url} is not https://: it would not be verified`);
  let trusted;
  try {
    trusted = trustedCa(ca, '--ca');
  } catch (e) {
    throw usageError((e as Error).message);
  }
  // Through the proxy the environment names, as curl and kubectl go; the Hub verified through the tunnel too.
  const dispatcher = proxiedDispatcher(env, trusted);
  return new HubClient(url, parsed.string('token') ?? env.FLEETPLANE_TOKEN, { dispatcher, caGiven: trusted !== undefined });
}

/** The command whose name is closest to what was typed (at most two edits away, or a prefix of it), if any. */
function nearest(typed: string): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const c of allCommands) {
    const name = c.path.join(' ');
    const distance = name.startsWith(typed) ? 1 : editDistance(typed, name);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[b.length]!;
}
