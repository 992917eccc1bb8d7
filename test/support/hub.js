import { ConfigFile, hashToken } from "../../packages/hub/src/config.js";
import { startHub } from "../../packages/hub/src/hub.js";
import { createLogger } from "../../packages/hub/src/logger.js";
/** Tokens of the test credentials: one per role, and agents bound to edge-1 and edge-2. */
export const TOKENS = {
    admin: 'admin-token',
    operator: 'operator-token',
    viewer: 'viewer-token',
    agent1: 'edge-1-agent-token',
    agent2: 'edge-2-agent-token',
};
export function testConfig(overrides = {}) {
    const file = ConfigFile.parse({
        control_api: {
            credentials: [
                { id: 'alice', role: 'admin', token_sha256: hashToken(TOKENS.admin) },
                { id: 'bob', role: 'operator', token_sha256: hashToken(TOKENS.operator) },
                { id: 'audit', role: 'viewer', token_sha256: hashToken(TOKENS.viewer) },
                { id: 'edge-1-agent', role: 'agent', node_id: 'edge-1', token_sha256: hashToken(TOKENS.agent1) },
                { id: 'edge-2-agent', role: 'agent', node_id: 'edge-2', token_sha256: hashToken(TOKENS.agent2) },
            ],
        },
        reconciliation: overrides,
    });
    return { port: 0, dataDir: '/nonexistent', databaseUrl: null, embeddedPort: 0, file, generatedAdminToken: null, adminTokenFile: null };
}
/** A Hub on a free port against the given database, with silent logs and an optional clock. */
export async function startTestHub(databaseUrl, options = {}) {
    const hub = await startHub({
        config: options.config ?? testConfig(),
        databaseUrl,
        port: 0,
        logger: createLogger('error', true),
        ...(options.clock ? { clock: options.clock } : {}),
    });
    return {
        ...hub,
        async call(method, path, { token = TOKENS.admin, body, headers = {} } = {}) {
            const res = await fetch(hub.url + path, {
                method,
                headers: {
                    ...(token ? { authorization: `Bearer ${token}` } : {}),
                    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
                    ...headers,
                },
                ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
            });
            const text = await res.text();
            let parsed = text;
            try {
                parsed = JSON.parse(text);
            }
            catch {
                // not JSON: /metrics
            }
            return { status: res.status, body: parsed, headers: res.headers };
        },
    };
}
