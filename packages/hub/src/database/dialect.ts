import { PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type DatabaseConnection, type Dialect, type Driver, type Kysely, type TransactionSettings } from 'kysely';
import type pg from 'pg';
import { PlannedConnection } from './connection.ts';
import { connectTimedOut, heldConnections, type HeldConnections } from './held-connections.ts';

/**
 * Kysely on a pg pool, its transactions sent by PlannedConnection (database/connection.ts): PostgreSQL's
 * adapter, compiler and introspector, and a driver of our own for the connection seam.
 */
export function plannedDialect(pool: pg.Pool, onDeallocated: (count: number) => void): Dialect {
  const held = heldConnections(pool);
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PlannedDriver(pool, onDeallocated, held),
    createIntrospector: (db: Kysely<any>) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

class PlannedDriver implements Driver {
  readonly #pool: pg.Pool;
  readonly #onDeallocated: (count: number) => void;
  readonly #held: HeldConnections;

  constructor(pool: pg.Pool, onDeallocated: (count: number) => void, held: HeldConnections) {
    this.#pool = pool;
    this.#onDeallocated = onDeallocated;
    this.#held = held;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    try {
      return new PlannedConnection(await this.#pool.connect(), this.#onDeallocated);
    } catch (error) {
      // The server took no new connection in time: the ones held to it wait on it too (held-connections.ts).
      if (connectTimedOut(error)) this.#held.closeAll();
      throw error;
    }
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    (connection as PlannedConnection).begin(beginStatement(settings));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as PlannedConnection).commit();
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as PlannedConnection).rollback();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PlannedConnection).release();
  }

  async destroy(): Promise<void> {
    if (!this.#pool.ended) await this.#pool.end();
  }
}

function beginStatement({ isolationLevel, accessMode }: TransactionSettings): string {
  if (!isolationLevel && !accessMode) return 'BEGIN';
  return ['START TRANSACTION', ...(isolationLevel ? [`ISOLATION LEVEL ${isolationLevel.toUpperCase()}`] : []), ...(accessMode ? [accessMode.toUpperCase()] : [])].join(' ');
}
