import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256 digest');

const Credential = z.discriminatedUnion('role', [
  z.object({ id: z.string().min(1), role: z.enum(['viewer', 'operator', 'admin']), token_sha256: Sha256Hex }).strict(),
  z.object({ id: z.string().min(1), role: z.literal('agent'), node_id: z.string().min(1), token_sha256: Sha256Hex }).strict(),
]);
export type Credential = z.infer<typeof Credential>;

export const Mode = z.enum(['observe', 'lifecycle', 'configuration']);
export type Mode = z.infer<typeof Mode>;

/** The file named by FLEETPLANE_CONFIG (API.md, "Configuration"). Unknown keys are errors, not silently ignored. */
export const ConfigFile = z
  .object({
    control_api: z
      .object({
        approval_required: z.boolean().default(false),
        approval_ttl_ms: z.number().int().positive().default(86_400_000),
        credentials: z.array(Credential).default([]),
      })
      .strict()
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
  })
  .strict();
export type ConfigFile = z.infer<typeof ConfigFile>;

export interface HubConfig {
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  /** Port of the embedded PostgreSQL when DATABASE_URL is unset. */
  embeddedPort: number;
  file: ConfigFile;
  /** Set when no config file was given: the token of the generated admin credential, if made this start. */
  generatedAdminToken: string | null;
  adminTokenFile: string | null;
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export function parseConfigFile(text: string, source: string): ConfigFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${source} is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = ConfigFile.safeParse(json);
  if (!parsed.success) throw new Error(`${source} is not a valid Fleetplane configuration: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/**
 * Reads the environment and the config file. With no file, a generated admin credential keeps a new
 * user from being locked out without ever running unauthenticated: its token is written once to
 * FLEETPLANE_DATA_DIR/admin.token (mode 0600) and reused on later starts.
 */
export async function loadConfig(env: NodeJS.ProcessEnv = process.env): Promise<HubConfig> {
  const dataDir = resolve(env.FLEETPLANE_DATA_DIR ?? '.fleetplane');
  const base = {
    port: portFrom(env.FLEETPLANE_PORT, 8080, 'FLEETPLANE_PORT'),
    dataDir,
    databaseUrl: env.DATABASE_URL || null,
    embeddedPort: portFrom(env.FLEETPLANE_PG_PORT, 5488, 'FLEETPLANE_PG_PORT'),
  };
  if (env.FLEETPLANE_CONFIG) {
    const file = parseConfigFile(readFileSync(env.FLEETPLANE_CONFIG, 'utf8'), env.FLEETPLANE_CONFIG);
    return { ...base, file, generatedAdminToken: null, adminTokenFile: null };
  }
  const adminTokenFile = join(dataDir, 'admin.token');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  let token: string;
  let generated: string | null = null;
  try {
    token = (await readFile(adminTokenFile, 'utf8')).trim();
  } catch {
    token = randomBytes(24).toString('base64url');
    await writeFile(adminTokenFile, token + '\n', { mode: 0o600, flag: 'wx' });
    generated = token;
  }
  const file = ConfigFile.parse({
    control_api: { credentials: [{ id: 'admin', role: 'admin', token_sha256: hashToken(token) }] },
  });
  return { ...base, file, generatedAdminToken: generated, adminTokenFile };
}

function portFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, got ${value}`);
  return port;
}
