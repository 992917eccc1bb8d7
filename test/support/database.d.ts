import { type Database } from '../../packages/hub/src/database/connect.ts';
export interface TestDatabase extends Database {
    name: string;
    /** Drops the database unless a test in this file failed: then it is kept, and named, for inspection. */
    drop(): Promise<void>;
}
/** A fresh database for one test file: migrated (a clone of the run's template) or, with `empty`, bare. */
export declare function createTestDatabase(options?: {
    empty?: boolean;
}): Promise<TestDatabase>;
