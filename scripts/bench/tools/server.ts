import { cpus, totalmem } from 'node:os';
import type pg from 'pg';
import type { BenchDatabase } from '../database.ts';

/** The settings a report names: what makes a commit cost what it costs. */
const KNOBS = ['fsync', 'synchronous_commit', 'wal_sync_method', 'shared_buffers', 'max_connections'] as const;

export type Settings = Partial<Record<(typeof KNOBS)[number], string>>;

export async function serverSettings(pool: pg.Pool): Promise<Settings> {
  const { rows } = await pool.query<{ name: string; setting: string }>(`SELECT name, setting FROM pg_settings WHERE name = ANY($1)`, [[...KNOBS]]);
  return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
}

/** A report's first lines: its title, the server and its settings, the machine, and how the benchmark runs (`setup`). */
export function header(benchmark: string, database: BenchDatabase, settings: Settings, setup: string): string[] {
  const knobs = KNOBS.filter((k) => settings[k] !== undefined)
    .map((k) => `${k}=${settings[k]}${k === 'shared_buffers' ? '×8kB' : ''}`)
    .join(', ');
  const cpu = cpus();
  return [
    '',
    `## ${benchmark} benchmark`,
    '',
    `PostgreSQL ${database.serverVersion}, ${database.embedded ? 'embedded (started by the benchmark)' : 'external server'}; ${knobs}`,
    `Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}; ${setup}`,
  ];
}
