import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { ADVISORY_LOCKS } from './advisory-locks.ts';
import { takePrepareLock, type OnLockWait } from './prepare-lock.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export type MigrationRefusal =
  | { code: 'database_newer_than_code'; versions: number[] }
  | { code: 'migration_changed'; version: number; name: string }
  /** The role may not change the schema (a Hub on its own role, fleetplane_hub): the owner migrates first. */
  | { code: 'migration_needs_owner'; versions: number[]; message: string };

export class MigrationRefused extends Error {
  readonly refusal: MigrationRefusal;
  constructor(refusal: MigrationRefusal) {
    super(
      refusal.code === 'database_newer_than_code'
        ? `the database has migrations this Hub does not know (${refusal.versions.join(', ')}): run a newer Fleetplane`
        : refusal.code === 'migration_needs_owner'
          ? `migrations ${refusal.versions.join(', ')} cannot be applied: ${refusal.message} (this role may not change the schema: run \`npx fleetplane migrate\` as the database's owner)`
          : `migration ${refusal.version} (${refusal.name}) differs from the one applied to this database`,
    );
    this.refusal = refusal;
  }
}

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../../db/migrations/', import.meta.url));

/** Numbered plain-SQL files: `0001_event_store.sql` is version 1. */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const sql = readFileSync(join(dir, file), 'utf8');
      return {
        version: Number(file.slice(0, 4)),
        name: file.slice(5, -4),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now())`;

/**
 * Why migrations could not be applied. The Hub's own role (fleetplane_hub) may not migrate: the owner does, before
 * the Hub starts, so that is a refusal (one line at start, no stack), not a failure of the Hub.
 */
const notApplied = (what: string, versions: number[], e: unknown): Error =>
  (e as { code?: string }).code === '42501'
    ? new MigrationRefused({ code: 'migration_needs_owner', versions, message: (e as Error).message })
    : new Error(`${what}: ${(e as Error).message}`, { cause: e });

/** Applies pending migrations under the preparation lock (`onWait`: it is held elsewhere); returns the versions it applied. */
export async function migrate(pool: pg.Pool, migrations = loadMigrations(), onWait?: OnLockWait): Promise<number[]> {
  const client = await pool.connect();
  try {
    await takePrepareLock(client, onWait);
    try {
      const pending = await pendingMigrations(client, migrations);
      if (pending.length === 0) return [];
      await client.query(CREATE_TABLE).catch((e: unknown) => {
        const versions = pending.map((m) => m.version);
        throw notApplied(`migrations ${versions.join(', ')} cannot be applied`, versions, e);
      });
      for (const [i, m] of pending.entries()) {
        await client.query('BEGIN');
        try {
          // A migration runs to its end: one cut off by a role's statement_timeout would fail every start after.
          await client.query('SET LOCAL statement_timeout = 0');
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
            m.version,
            m.name,
            m.checksum,
          ]);
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK');
          throw notApplied(`migration ${m.version} (${m.name}) failed`, pending.slice(i).map((p) => p.version), e);
        }
      }
      return pending.map((m) => m.version);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCKS.prepare]);
    }
  } finally {
    client.release();
  }
}

/** The migrations not yet applied; refuses a database that is ahead of the code or was migrated differently. */
export async function pendingMigrations(
  client: pg.Pool | pg.PoolClient,
  migrations = loadMigrations(),
): Promise<Migration[]> {
  const exists = await client.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`);
  if (!exists.rows[0].exists) return migrations;
  const applied = await client.query<{ version: number; name: string; checksum: string }>(
    'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
  );
  const known = new Map(migrations.map((m) => [m.version, m]));
  const unknown = applied.rows.filter((r) => !known.has(r.version)).map((r) => r.version);
  if (unknown.length > 0) throw new MigrationRefused({ code: 'database_newer_than_code', versions: unknown });
  for (const row of applied.rows) {
    const m = known.get(row.version)!;
    if (m.checksum !== row.checksum) throw new MigrationRefused({ code: 'migration_changed', version: m.version, name: m.name });
  }
  const done = new Set(applied.rows.map((r) => r.version));
  return migrations.filter((m) => !done.has(m.version));
}
