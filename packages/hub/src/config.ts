import { hash, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { ArchiveError } from './archive/archive-error.ts';
import { parseDestination, type DestinationSpec } from './archive/destination-url.ts';
import { ConfigError } from './start-failure.ts';
import { readTlsPair, type TlsPair } from './tls.ts';

// Either case, as tools print it; kept lowercase, as the Hub computes it.
const Sha256Hex = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'a hex SHA-256 digest')
  .transform((h) => h.toLowerCase());

/** A bound of admission control (http/admission.ts): requests of a class in flight, or waiting. */
const InFlight = z.number().int().min(1).max(100_000);
const Queued = z.number().int().min(0).max(100_000);

const OperatorRole = z.enum(['viewer', 'operator', 'admin']);

const Credential = z.discriminatedUnion('role', [
  z.object({ id: z.string().min(1), role: OperatorRole, token_sha256: Sha256Hex }).strict(),
  z.object({ id: z.string().min(1), role: z.literal('agent'), node_id: z.string().min(1), token_sha256: Sha256Hex }).strict(),
]);
export type Credential = z.infer<typeof Credential>;

/**
 * An OpenID Connect issuer whose ID tokens the Hub accepts (README, "Single sign-on"). Its principals are
 * `<name>:<sub>`; their role is the highest one `roles` gives any of the token's groups.
 */
const OidcIssuer = z
  .object({
    /** Names the issuer's principals (`<name>:<sub>`) and its button on the console's sign-in page. */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes'),
    /** The issuer URL exactly as its tokens' `iss` and its discovery document say it. */
    issuer: z.url({ protocol: /^https?$/ }),
    /** The `aud` the Hub requires: the client id tokens are issued to. */
    audience: z.string().min(1),
    /** The public client (no secret) the console signs in as, with PKCE; the audience unless set. */
    client_id: z.string().min(1).nullable().default(null),
    scopes: z.array(z.string().min(1)).default(['openid', 'groups']),
    /** The claim holding the token's groups (a list of names, or one). */
    groups_claim: z.string().min(1).default('groups'),
    /** Group → role; a token none of whose groups is here is refused (403 no_role). */
    roles: z.record(z.string().min(1), OperatorRole),
  })
  .strict();
export type OidcIssuer = z.infer<typeof OidcIssuer>;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+)(ms|s|m|h|d)$/;

/** A duration as operators write one, a whole number and a unit (ms, s, m, h, d): "30m", "1h", "7d", in milliseconds. */
export function durationMs(text: string): number {
  const [, amount, unit] = DURATION.exec(text)!;
  return Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
}

/** A duration (durationMs) between two others, kept as written. */
export const Duration = (min: string, max: string) =>
  z
    .string()
    .regex(DURATION, 'a duration such as "30m", "1h" or "7d"')
    .refine((d) => !DURATION.test(d) || durationMs(d) >= durationMs(min), `at least ${min}`)
    .refine((d) => !DURATION.test(d) || durationMs(d) <= durationMs(max), `at most ${max}`);

// PostgreSQL's units (postgresql.conf): a kilobyte is 1024 bytes.
const UNIT_BYTES = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 } as const;
const SIZE = /^(\d+)(B|kB|MB|GB|TB)$/;

/** A size as PostgreSQL's settings write one, a whole number and a unit (B, kB, MB, GB, TB; 1024-based): "50GB", in bytes. */
export function sizeBytes(text: string): number {
  const [, amount, unit] = SIZE.exec(text)!;
  return Number(amount) * UNIT_BYTES[unit as keyof typeof UNIT_BYTES];
}

const Size = z
  .string()
  .regex(SIZE, 'a size such as "500MB" or "50GB" (B, kB, MB, GB, TB; 1024-based, as in postgresql.conf)')
  .refine((s) => !SIZE.test(s) || sizeBytes(s) > 0, 'more than 0 bytes')
  .refine((s) => !SIZE.test(s) || Number.isSafeInteger(sizeBytes(s)), 'at most 8191TB');

/** A destination given as a URL (`file:`, `s3:`) rather than a path. */
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** An archive destination parseDestination accepts (its refusal, which says why, is the message). */
const ArchiveDestination = z.string().superRefine((value, ctx) => {
  try {
    parseDestination(value);
  } catch (e) {
    if (!(e instanceof ArchiveError)) throw e;
    ctx.addIssue({ code: 'custom', message: e.message });
  }
});

/**
 * How long a request or a key is kept, in milliseconds: up to 3650 days, as `log.hot_retention`. A time
 * further away is no date (an approval's expiry) or none PostgreSQL stores (the oldest key kept).
 */
const TtlMs = z.number().int().positive().max(durationMs('3650d'), 'at most 315360000000 (3650 days)');
export const Mode = z.enum(['observe', 'lifecycle', 'configuration']);
export type Mode = z.infer<typeof Mode>;

/** The file named by FLEETPLANE_CONFIG (README, "Configuration"). Unknown keys are errors, not silently ignored. */
export const ConfigFile = z
  .object({
    control_api: z
      .object({
        /**
         * Admission control (http/admission.ts): requests of the agents' protocol routes this Hub works on at once,
         * and how many more wait their turn before the next is refused 429 `overloaded`; the same for every other
         * route of the API (operators, the console, scripts). Long polls and event streams are not counted.
         */
        agent_max_in_flight: InFlight.default(1024),
        agent_max_queued: Queued.default(4096),
        operator_max_in_flight: InFlight.default(2),
        operator_max_queued: Queued.default(64),
        approval_required: z.boolean().default(false),
        approval_ttl_ms: TtlMs.default(86_400_000),
        credentials: z.array(Credential).default([]),
        /** How long an Idempotency-Key is remembered after its first request; a retry after that writes anew. */
        idempotency_ttl_ms: TtlMs.default(86_400_000),
        /**
         * A file holding the hub-to-node token (`node_proxy` scope) the Hub sends to agents' control
         * endpoints; agents are given its SHA-256. Relative paths are read from the config file's directory.
         * Unset: the Hub pushes to no node, and every node takes its attempts by long poll.
         */
        node_proxy_token_file: z.string().min(1).nullable().default(null),
        /**
         * A CA file (PEM) the Hub verifies agents' control endpoints against when their control address is
         * `https://…`. Unset: the system's CAs. Relative paths are read from the config file's directory.
         */
        node_proxy_ca_file: z.string().min(1).nullable().default(null),
        /** OpenID Connect issuers whose tokens sign operators in beside the static credentials. */
        oidc: z.array(OidcIssuer).default([]),
        /**
         * Connections the Hub holds at once (http/server-limits.ts): an agent holds two, its long poll's and its
         * reports', so the default serves 10,000 nodes and their operators. The next is closed unanswered.
         */
        max_connections: z.number().int().positive().default(30_000),
        /** How long a client may take to send a request's headers, from its first byte. */
        headers_timeout_ms: z.number().int().min(1_000).max(600_000).default(20_000),
        /** How long a client may take to send a whole request, its body included (a 16 MiB report at 1.1 Mbit/s takes 120 s). */
        request_timeout_ms: z.number().int().min(1_000).max(3_600_000).default(120_000),
      })
      .strict()
      .superRefine((api, ctx) => {
        if (api.request_timeout_ms < api.headers_timeout_ms) {
          ctx.addIssue({ code: 'custom', path: ['request_timeout_ms'], message: `at least headers_timeout_ms (${api.headers_timeout_ms}): a request's time includes its headers'` });
        }
        const names = api.oidc.map((i) => i.name);
        for (const name of names.filter((n, i) => names.indexOf(n) !== i)) ctx.addIssue({ code: 'custom', path: ['oidc'], message: `two issuers are named ${name}` });
        // An issuer's principals are `<name>:<sub>`: a credential spelled so would be one of them.
        for (const c of api.credentials) {
          const name = names.find((n) => c.id.startsWith(`${n}:`));
          if (name) ctx.addIssue({ code: 'custom', path: ['credentials'], message: `credential id ${c.id} is spelled as a principal of issuer ${name}` });
        }
        // A token is one principal: a digest listed for two would sign its bearer in as whichever came last.
        const principalOf = (c: Credential) => `${c.id} (${c.role}${c.role === 'agent' ? ` of ${c.node_id}` : ''})`;
        const byDigest = new Map<string, string>();
        for (const c of api.credentials) {
          const other = byDigest.get(c.token_sha256);
          if (other !== undefined && other !== principalOf(c)) {
            ctx.addIssue({ code: 'custom', path: ['credentials'], message: `credentials ${other} and ${principalOf(c)} have the same token_sha256: a token signs in one principal` });
          }
          byDigest.set(c.token_sha256, principalOf(c));
        }
      })
      .prefault({}),
    reconciliation: z
      .object({
        mode: Mode.default('lifecycle'),
        lease_ms: z.number().int().positive().default(30_000),
        stale_after_ms: z.number().int().positive().default(30_000),
        offline_after_ms: z.number().int().positive().default(120_000),
        retry_base_ms: z.number().int().positive().default(1_000),
        retry_max_ms: z.number().int().positive().default(60_000),
      })
      .strict()
      .prefault({}),
    /** The event log's lifecycle (README, "The log"). */
    log: z
      .object({
        /**
         * How long a segment of the log (a partition of `events`) spans at the rate the log grows; a segment
         * holds 100,000 to 50,000,000 events whatever the rate. Every history read plans each segment it cannot
         * rule out, so fewer, longer segments read faster (docs/decisions.md, "The partitioned log").
         */
        segment_duration: Duration('1m', '7d').default('1d'),
        /** A closed segment whose newest event is older than this is archived (README, "Log retention and archive"). */
        hot_retention: Duration('1m', '3650d').default('7d'),
        /** While the log's segments hold more than this, the oldest closed ones are archived whatever their age. */
        hot_max_bytes: Size.nullable().default(null),
        /**
         * Where archived segments go: `file:///path`, a directory path (relative: to the config file's
         * directory), or `s3://bucket/prefix`. Null: FLEETPLANE_DATA_DIR/archive. Hubs sharing a database share it.
         */
        archive: ArchiveDestination.nullable().default(null),
        /** How often a Hub looks for segments to archive. */
        archive_every: Duration('1s', '1d').default('1m'),
      })
      .strict()
      .prefault({}),
  })
  .strict();
export type ConfigFile = z.infer<typeof ConfigFile>;

export interface HubConfig {
  port: number;
  /** The address the Hub listens on (FLEETPLANE_BIND); null: every interface. */
  bind: string | null;
  /** Serve HTTPS with this certificate and key (FLEETPLANE_TLS_CERT, FLEETPLANE_TLS_KEY); null: plain HTTP. */
  tls: TlsPair | null;
  dataDir: string;
  databaseUrl: string | null;
  /** Port of the embedded PostgreSQL when DATABASE_URL is unset. */
  embeddedPort: number;
  file: ConfigFile;
  /** Set when no config file was given: the token of the generated admin credential, if made this start. */
  generatedAdminToken: string | null;
  adminTokenFile: string | null;
}

// One-shot `hash`: every request's credential goes through it, at half the cost of createHash here.
export const hashToken = (token: string): string => hash('sha256', token);

/**
 * A new random bearer token (192 bits), as `fleetplane token` prints and a generated admin credential has.
 * The prefix lets secret scanners find a leaked one, and keeps it from ever reading as a command-line option:
 * bare base64url starts with `-` once in 64 tokens, which `--token T` then refuses.
 */
export const newToken = (): string => `fp_${randomBytes(24).toString('base64url')}`;

export function parseConfigFile(text: string, source: string): ConfigFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${source} is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = ConfigFile.safeParse(json);
  if (!parsed.success) {
    // One line (a refused start prints one, a refused reload logs one): each issue, then where it is.
    const issues = z.prettifyError(parsed.error).replace(/\n\s*→ /g, ' ').replaceAll('\n', '; ');
    throw new ConfigError(`${source} is not a valid Fleetplane configuration: ${issues}`);
  }
  return parsed.data;
}

/** Reads and checks the file named by FLEETPLANE_CONFIG; relative paths in it are made relative to its directory. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`FLEETPLANE_CONFIG ${path} cannot be read: ${(e as Error).message}`);
  }
  const file = parseConfigFile(text, path);
  const here = dirname(resolve(path));
  const tokenFile = file.control_api.node_proxy_token_file;
  if (tokenFile !== null) file.control_api.node_proxy_token_file = resolve(here, tokenFile);
  const caFile = file.control_api.node_proxy_ca_file;
  if (caFile !== null) file.control_api.node_proxy_ca_file = resolve(here, caFile);
  const archive = file.log.archive;
  if (archive !== null && !HAS_SCHEME.test(archive) && !isAbsolute(archive)) file.log.archive = resolve(here, archive);
  return file;
}

/** Where the database is, from the environment alone: what the database commands need, and no more. */
export type DatabaseSettings = Pick<HubConfig, 'dataDir' | 'databaseUrl' | 'embeddedPort'>;

export function databaseSettings(env: NodeJS.ProcessEnv): DatabaseSettings {
  return {
    dataDir: resolve(env.FLEETPLANE_DATA_DIR ?? '.fleetplane'),
    databaseUrl: env.DATABASE_URL || null,
    embeddedPort: portFrom(env.FLEETPLANE_PG_PORT, 5488, 'FLEETPLANE_PG_PORT'),
  };
}

/**
 * Reads the environment and the config file. With no file, a generated admin credential keeps a new
 * user from being locked out without ever running unauthenticated: its token is written once to
 * FLEETPLANE_DATA_DIR/admin.token (mode 0600) and reused on later starts.
 */
export async function loadConfig(env: NodeJS.ProcessEnv = process.env): Promise<HubConfig> {
  const database = databaseSettings(env);
  const { dataDir } = database;
  const base = {
    port: portFrom(env.FLEETPLANE_PORT, 8080, 'FLEETPLANE_PORT'),
    bind: bindFrom(env.FLEETPLANE_BIND),
    // Read and checked before anything starts: a bad pair stops the Hub here, with the reason.
    tls: readTlsPair(env.FLEETPLANE_TLS_CERT, env.FLEETPLANE_TLS_KEY, new Date()),
    ...database,
  };
  if (env.FLEETPLANE_CONFIG) return { ...base, file: readConfigFile(env.FLEETPLANE_CONFIG), generatedAdminToken: null, adminTokenFile: null };
  const adminTokenFile = join(dataDir, 'admin.token');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  let token: string;
  let generated: string | null = null;
  try {
    token = (await readFile(adminTokenFile, 'utf8')).trim();
  } catch {
    token = newToken();
    await writeFile(adminTokenFile, token + '\n', { mode: 0o600, flag: 'wx' });
    generated = token;
  }
  const file = ConfigFile.parse({
    control_api: { credentials: [{ id: 'admin', role: 'admin', token_sha256: hashToken(token) }] },
  });
  return { ...base, file, generatedAdminToken: generated, adminTokenFile };
}

/** Where this Hub archives the log's segments: `log.archive`, else the data directory's `archive`. */
export function archiveDestination(config: Pick<HubConfig, 'dataDir' | 'file'>): DestinationSpec {
  return parseDestination(config.file.log.archive ?? join(config.dataDir, 'archive'));
}

/**
 * The hub-to-node token, read from `control_api.node_proxy_token_file` (first line, trimmed), or null when
 * none is configured. A configured file that is missing or empty stops the Hub at start. The token is held
 * in memory only; it is never logged.
 */
export function readNodeProxyToken(file: ConfigFile, warn: (message: string, fields: Record<string, unknown>) => void): string | null {
  const path = file.control_api.node_proxy_token_file;
  if (path === null) return null;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`control_api.node_proxy_token_file ${path} cannot be read: ${(e as Error).message}`);
  }
  const token = text.split('\n')[0]!.trim();
  if (token.length < 16) throw new ConfigError(`control_api.node_proxy_token_file ${path} must hold a token of at least 16 characters`);
  if ((statSync(path).mode & 0o077) !== 0) warn('node_proxy token file is readable by group or others', { file: path });
  return token;
}

/**
 * The keys a running Hub takes from a reloaded file (SIGHUP): they are read at every request. Every other key
 * was read at start into workers, timers and connections; a change to one is kept out and named.
 */
export const LIVE_KEYS = ['control_api.credentials', 'control_api.oidc', 'control_api.approval_required', 'control_api.approval_ttl_ms', 'control_api.idempotency_ttl_ms'] as const;

export interface Reloaded {
  /** The configuration to run on: the new file's live keys, the running one's others. */
  file: ConfigFile;
  /** Keys the new file changes that cannot change live: kept as they run, and named in a warning. */
  kept: string[];
  /** Credential ids added and removed (or whose role, node or token changed: removed and added). */
  added: string[];
  removed: string[];
  /** OpenID Connect issuer names added and removed (or changed: removed and added). */
  issuersAdded: string[];
  issuersRemoved: string[];
}

/** What a running Hub on `running` takes from `next`, a file read again (LIVE_KEYS). */
export function reloadedConfig(running: ConfigFile, next: ConfigFile): Reloaded {
  const file: ConfigFile = structuredClone(running);
  const kept: string[] = [];
  for (const [section, values] of Object.entries(next) as [keyof ConfigFile, Record<string, unknown>][]) {
    for (const [key, value] of Object.entries(values)) {
      const path = `${section}.${key}`;
      if ((LIVE_KEYS as readonly string[]).includes(path)) (file[section] as Record<string, unknown>)[key] = structuredClone(value);
      else if (JSON.stringify(value) !== JSON.stringify((running[section] as Record<string, unknown>)[key])) kept.push(path);
    }
  }
  const key = (c: Credential) => JSON.stringify([c.id, c.role, c.role === 'agent' ? c.node_id : null, c.token_sha256]);
  const [added, removed] = changes(running.control_api.credentials, next.control_api.credentials, key, (c) => c.id);
  const [issuersAdded, issuersRemoved] = changes(running.control_api.oidc, next.control_api.oidc, (i) => JSON.stringify(i), (i) => i.name);
  return { file, kept, added, removed, issuersAdded, issuersRemoved };
}

/** The names of the items of `after` that `before` lacks, and of those of `before` that `after` lacks, compared by `key`. */
function changes<T>(before: readonly T[], after: readonly T[], key: (item: T) => string, name: (item: T) => string): [string[], string[]] {
  const was = new Set(before.map(key));
  const is = new Set(after.map(key));
  return [after.filter((i) => !was.has(key(i))).map(name), before.filter((i) => !is.has(key(i))).map(name)];
}

const HOSTNAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

function bindFrom(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  if (isIP(value) || HOSTNAME.test(value)) return value;
  throw new ConfigError(`FLEETPLANE_BIND must be an IP address or a host name (no port: that is FLEETPLANE_PORT), got ${value}`);
}

function portFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`${name} must be a port number, got ${value}`);
  return port;
}

/**
 * SPEC H10: a two-person gate with fewer than two identities able to approve cannot work as one (the
 * submitter never approves its own request, and a sole admin would approve everyone else's alone).
 */
export function approvalGateWarning(file: ConfigFile): string | null {
  if (!file.control_api.approval_required) return null;
  const approvers = new Set(file.control_api.credentials.filter((c) => c.role === 'admin').map((c) => c.id));
  // An issuer's admin group can hold any number of people.
  if (approvers.size >= 2 || file.control_api.oidc.some((i) => Object.values(i.roles).includes('admin'))) return null;
  return `control_api.approval_required is on but only ${approvers.size} identity can approve (${[...approvers].join(', ') || 'none'}): add a second admin credential`;
}
