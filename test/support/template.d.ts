/** Creates a migrated database that test files clone with CREATE DATABASE … TEMPLATE. */
export declare function prepareTemplate(adminUrl: string): Promise<string>;
export declare function withDatabase(url: string, database: string): string;
