import { ConfigFile, type HubConfig } from '../../packages/hub/src/config.ts';
import type { Clock } from '../../packages/hub/src/clock.ts';
import { type Hub } from '../../packages/hub/src/hub.ts';
/** Tokens of the test credentials: one per role, and agents bound to edge-1 and edge-2. */
export declare const TOKENS: {
    readonly admin: "admin-token";
    readonly operator: "operator-token";
    readonly viewer: "viewer-token";
    readonly agent1: "edge-1-agent-token";
    readonly agent2: "edge-2-agent-token";
};
export declare function testConfig(overrides?: Partial<ConfigFile['reconciliation']>): HubConfig;
export interface TestHub extends Hub {
    call(method: string, path: string, options?: {
        token?: string | null;
        body?: unknown;
        headers?: Record<string, string>;
    }): Promise<{
        status: number;
        body: any;
        headers: Headers;
    }>;
}
/** A Hub on a free port against the given database, with silent logs and an optional clock. */
export declare function startTestHub(databaseUrl: string, options?: {
    clock?: Clock;
    config?: HubConfig;
}): Promise<TestHub>;
