// Generated from the Hub's OpenAPI document (packages/hub/src/http/openapi.ts) by openapi-typescript;
// do not edit: `npm run console-types` writes it again after a route or view changes.
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is up */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Database reachable, migrations current, workers running */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics, in the text exposition format */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This API, as OpenAPI 3 */
        get: operations["getOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Register (or re-register) the calling agent's node; labels are never touched */
        post: operations["registerAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent/reports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A full report of the calling agent's node; a replayed or stale one is ignored (200, accepted false) */
        post: operations["reportNodeState"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Long poll (wait seconds, 0-60) for the calling node's attempts, each leased to it before it is answered, and the removed streams it still reports */
        get: operations["pollAttempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent/attempts/{id}/result": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The agent's result for one of its node's attempts */
        post: operations["recordAttemptResult"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/nodes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List nodes, ordered by id; filtered by a label selector (`env=prod,tier=edge`), liveness, maintenance and text in the id */
        get: operations["listNodes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/node-counts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** How many nodes the filters of GET /nodes select, in all and by liveness and maintenance: one row, whatever the size of the fleet */
        get: operations["countNodes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/nodes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One node, with its reports of the last minute and hour (how many, how many changed its state) */
        get: operations["getNode"];
        put?: never;
        post?: never;
        /** Retire a node: it leaves the fleet for good and its agent credential is refused; refused while it has live intents or is in a running rollout, unless force=true (Idempotency-Key) */
        delete: operations["retireNode"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/report-rates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Each node's reports of the last minute and hour (how many, how many changed its state) and its last report, ordered by node id */
        get: operations["listReportRates"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/nodes/{id}/labels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Replace the whole label map of a node (at most 16 labels; keys and values 1-63 letters, digits, "-", "_", "."; a key may start with "prefix/") */
        put: operations["replaceNodeLabels"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/nodes/{id}/drain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Drain a node: no new attempts; its desired streams are kept (drain is not stop) */
        post: operations["drainNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/nodes/{id}/undrain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Undrain a node: reconciliation resumes at the current generations */
        post: operations["undrainNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/nodes/{id}/mode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Override the reconciliation mode for one node (null follows the global mode) */
        put: operations["setNodeMode"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/reconciliation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The global reconciliation mode, and whether it is the configuration file's or an operator's */
        get: operations["getReconciliationSettings"];
        /** Set the global reconciliation mode: observe, lifecycle or configuration */
        put: operations["setReconciliationMode"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/streams/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One stream: desired state, observed state per node, intents */
        get: operations["getStream"];
        /** Write a stream's desired state: a new generation, one intent per placement node (If-Match, Idempotency-Key; Prefer: return=minimal answers 204 at the commit) */
        put: operations["writeStream"];
        post?: never;
        /** Delete a stream: a new generation wanting it stopped on every node; removed once every node observed the stop, deleting meanwhile (If-Match, Idempotency-Key) */
        delete: operations["deleteStream"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/streams/{id}/actions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run a one-shot action on a stream (restart): a new generation carrying the action id */
        post: operations["runStreamAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/streams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List streams, ordered by id */
        get: operations["listStreams"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/intents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List intents, newest first, filtered by state, node and stream */
        get: operations["listIntents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/intents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One intent with its attempts and the events of its history (causation) */
        get: operations["getIntent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/drift": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where observed differs from desired: generation mismatches, stale nodes and configuration drift (the SQL view `drift`) */
        get: operations["listDrift"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/attempts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One attempt with its intent and why it exists: its causation chain back to the operator action or report that caused it */
        get: operations["getAttempt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/config-versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List configuration versions, newest first, without their content (GET one version for it) */
        get: operations["listConfigVersions"];
        put?: never;
        /** Store an immutable configuration version (content, format, optional parent); answers with its digest */
        post: operations["createConfigVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/config-versions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One configuration version with its content */
        get: operations["getConfigVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/nodes/{id}/configuration/apply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Apply a configuration version to one node: a single-node rollout */
        post: operations["applyNodeConfiguration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/nodes/{id}/configuration/rollback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Roll one node back to an earlier configuration version: a single-node rollout (exempt from approval only when that version was applied there before) */
        post: operations["rollbackNodeConfiguration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List rollouts, newest first (state= filters), each with its targets counted by state (GET one rollout for its targets) */
        get: operations["listRollouts"];
        put?: never;
        /** Roll a configuration version out to explicit nodes or a label selector, in batches (refused with approval_required when the gate is on) */
        post: operations["createRollout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One rollout: state, batch, and every target with its state, failure class and correlation id */
        get: operations["getRollout"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{id}/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One rollout without its targets, as GET /rollouts lists it (its targets counted by state, its recovery and health gate), and its targets counted by state in each batch */
        get: operations["getRolloutSummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{id}/targets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of one rollout's targets, by batch then node id (state=, batch= and recovery=holding filter), each as GET /rollouts/{id} shows it */
        get: operations["listRolloutTargets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{id}/actions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** pause, resume (only from paused), cancel, rollback to an earlier config_version (a new rollout), or rollback by scope (target|failed|all_changed): restore recovery points */
        post: operations["runRolloutAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether configuration changes need a second person's approval (control_api.approval_required), and how long a request waits */
        get: operations["getApprovalSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/config-approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List approval requests, newest first (status= filters) */
        get: operations["listApprovals"];
        put?: never;
        /** Submit a rollout, apply or rollback for approval: validated and pinned (version, resolved nodes, batch size); creates no rollout */
        post: operations["submitApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/config-approvals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One approval request */
        get: operations["getApproval"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/config-approvals/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve a pending request (admin, never its submitter): creates its rollout with the approver as actor */
        post: operations["approveApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/config-approvals/{id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reject a pending request (admin, never its submitter); it can be republished as a new request */
        post: operations["rejectApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The event log in commit-safe order, filtered by stream, type, correlation id, actor, time and reports (all must hold; repeated reports are left out unless asked for); oldest first, paging by `after` = next_cursor (null: nothing more is readable yet), or with `order=desc` newest first, paging back by `before` = next_cursor (null: the start of the log) */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Follows the event log live as server-sent events (`id:` the cursor, `event:` the type, `data:` the event), from `Last-Event-ID` or `after`, else from now; the same filters as GET /events; a comment every 15 s */
        get: operations["followEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's identity and role (viewer and above; agents get 403) */
        get: operations["whoami"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The OpenID Connect issuers the console offers for sign-in, with their public client ids */
        get: operations["listAuthProviders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Exchanges an authorization code (PKCE) at the issuer's token endpoint for an ID token, verified as every request's is */
        post: operations["exchangeAuthCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ApprovalSettings: {
            approval_required: boolean;
            approval_ttl_ms: number;
        };
        ApprovalView: {
            approval_id: string;
            /** @enum {string} */
            kind: "rollout" | "apply" | "rollback";
            config_version: string;
            nodes: string[];
            selector: {
                [key: string]: string;
            } | null;
            batch_size: number;
            health: {
                /** @default 60000 */
                soak_ms: number;
                /** @default 0 */
                max_unhealthy_targets: number;
                /**
                 * @default pause
                 * @enum {string}
                 */
                on_unhealthy: "pause" | "rollback";
            } | null;
            /** @enum {string} */
            status: "pending" | "approved" | "rejected" | "expired";
            submitted_by: string;
            decided_by: string | null;
            decided_at: string | null;
            reason: string | null;
            rollout_id: string | null;
            expires_at: string;
            republished_from: string | null;
            correlation_id: string;
            created_at: string;
        };
        AttemptView: {
            attempt_id: string;
            intent_id: string;
            node_id: string;
            stream_id: string | null;
            generation: number;
            operation: string;
            action_id: string | null;
            config_version: string | null;
            /** @enum {string} */
            state: "queued" | "dispatched" | "succeeded" | "failed" | "ambiguous" | "superseded";
            lease_expires_at: string | null;
            dispatched_at: string | null;
            completed_at: string | null;
            failure_class: string | null;
            code: string | null;
            message: string | null;
            mutation: string | null;
            correlation_id: string;
            created_at: string;
        };
        ConfigVersionSummary: {
            config_version: string;
            digest: string;
            /** @enum {string} */
            format: "yaml" | "json" | "toml" | "text";
            parent: string | null;
            size_bytes: number;
            created_by: string;
            correlation_id: string;
            created_at: string;
        };
        ConfigVersionView: {
            config_version: string;
            digest: string;
            /** @enum {string} */
            format: "yaml" | "json" | "toml" | "text";
            parent: string | null;
            size_bytes: number;
            created_by: string;
            correlation_id: string;
            created_at: string;
            content: string;
        };
        EventView: {
            position: number;
            stream_id: string;
            stream_version: number;
            event_id: string;
            type: string;
            schema_version: number;
            data: {
                [key: string]: unknown;
            };
            metadata: {
                actor: string;
                role: string;
                correlation_id: string;
                causation_id: string | null;
                source: string;
            };
            recorded_at: string;
            cursor: string;
        };
        IntentView: {
            intent_id: string;
            /** @enum {string} */
            kind: "lifecycle" | "configuration";
            node_id: string;
            stream_id: string | null;
            generation: number;
            /** @enum {string|null} */
            desired_state: "running" | "stopped" | null;
            action_id: string | null;
            config_version: string | null;
            rollout_id: string | null;
            /** @enum {string} */
            state: "pending" | "converging" | "retrying" | "converged" | "blocked" | "superseded" | "ambiguous";
            retry_count: number;
            next_retry_at: string | null;
            failure_class: string | null;
            failure_code: string | null;
            failure_message: string | null;
            superseded_by: string | null;
            awaiting_report_after: {
                boot_id: string;
                report_seq: number;
            } | null;
            waiting_on: components["schemas"]["WaitingOn"];
            correlation_id: string;
            created_at: string;
            updated_at: string;
            converged_at: string | null;
        };
        NewRollout: {
            config_version: string;
            targets: {
                nodes?: string[];
                selector?: {
                    [key: string]: string;
                };
            };
            /** @default 1 */
            batch_size: number;
            health?: {
                /** @default 60000 */
                soak_ms: number;
                /** @default 0 */
                max_unhealthy_targets: number;
                /**
                 * @default pause
                 * @enum {string}
                 */
                on_unhealthy: "pause" | "rollback";
            };
        };
        NodeCounts: {
            total: number;
            liveness: {
                online: number;
                stale: number;
                offline: number;
            };
            maintenance: {
                active: number;
                draining: number;
            };
        };
        NodeView: {
            node_id: string;
            labels: {
                [key: string]: string;
            };
            capabilities: string[];
            data_address: string | null;
            control_address: string | null;
            agent_version: string | null;
            /** @enum {string} */
            maintenance: "active" | "draining";
            /** @enum {string} */
            liveness: "online" | "stale" | "offline";
            /** @enum {string} */
            mode: "observe" | "lifecycle" | "configuration";
            /** @enum {string|null} */
            mode_override: "observe" | "lifecycle" | "configuration" | null;
            boot_id: string;
            last_report_seq: number | null;
            last_report_at: string | null;
            last_seen_at: string;
            applied_config_version: string | null;
            desired_config_version: string | null;
            registered_at: string;
        };
        RecentReportsView: {
            last_minute: {
                reports: number;
                changed: number;
            };
            last_hour: {
                reports: number;
                changed: number;
            };
        };
        ReconciliationSettings: {
            /** @enum {string} */
            mode: "observe" | "lifecycle" | "configuration";
            /** @enum {string} */
            source: "operator" | "file";
        };
        ReportRateView: {
            node_id: string;
            last_report_seq: number | null;
            last_report_at: string | null;
            last_minute: {
                reports: number;
                changed: number;
            };
            last_hour: {
                reports: number;
                changed: number;
            };
        };
        RolloutSummary: {
            rollout_id: string;
            /** @enum {string} */
            kind: "rollout" | "apply" | "rollback";
            config_version: string;
            /** @enum {string} */
            state: "applying" | "paused" | "converged" | "cancelled" | "rolled_back";
            paused_reason: string | null;
            batch_size: number;
            batches: number;
            current_batch: number;
            /** @enum {string} */
            recovery: "none" | "restoring" | "recovery_required";
            selector: {
                [key: string]: string;
            } | null;
            created_by: string;
            approval_id: string | null;
            rollback_of: string | null;
            rolled_back_by: string | null;
            correlation_id: string;
            created_at: string;
            updated_at: string;
            health: {
                /** @default 60000 */
                soak_ms: number;
                /** @default 0 */
                max_unhealthy_targets: number;
                /**
                 * @default pause
                 * @enum {string}
                 */
                on_unhealthy: "pause" | "rollback";
            } | null;
            gate: {
                batch: number;
                /** @enum {string} */
                state: "soaking" | "passed" | "failed" | "stopped";
                since: string;
                until: string | null;
                evidence: {
                    node_id: string;
                    stream_id: string | null;
                    /** @enum {string} */
                    reason: "unhealthy" | "not_running" | "offline" | "version_changed";
                    detail: string;
                    since: string | null;
                }[];
                /** @enum {string|null} */
                action: "opened" | "skipped" | "approval_required" | "failed" | null;
            } | null;
            target_counts: {
                waiting: number;
                applying: number;
                converged: number;
                failed: number;
                cancelled: number;
            };
        };
        RolloutSummaryWithBatches: {
            rollout_id: string;
            /** @enum {string} */
            kind: "rollout" | "apply" | "rollback";
            config_version: string;
            /** @enum {string} */
            state: "applying" | "paused" | "converged" | "cancelled" | "rolled_back";
            paused_reason: string | null;
            batch_size: number;
            batches: number;
            current_batch: number;
            /** @enum {string} */
            recovery: "none" | "restoring" | "recovery_required";
            selector: {
                [key: string]: string;
            } | null;
            created_by: string;
            approval_id: string | null;
            rollback_of: string | null;
            rolled_back_by: string | null;
            correlation_id: string;
            created_at: string;
            updated_at: string;
            health: {
                /** @default 60000 */
                soak_ms: number;
                /** @default 0 */
                max_unhealthy_targets: number;
                /**
                 * @default pause
                 * @enum {string}
                 */
                on_unhealthy: "pause" | "rollback";
            } | null;
            gate: {
                batch: number;
                /** @enum {string} */
                state: "soaking" | "passed" | "failed" | "stopped";
                since: string;
                until: string | null;
                evidence: {
                    node_id: string;
                    stream_id: string | null;
                    /** @enum {string} */
                    reason: "unhealthy" | "not_running" | "offline" | "version_changed";
                    detail: string;
                    since: string | null;
                }[];
                /** @enum {string|null} */
                action: "opened" | "skipped" | "approval_required" | "failed" | null;
            } | null;
            target_counts: {
                waiting: number;
                applying: number;
                converged: number;
                failed: number;
                cancelled: number;
            };
            batch_counts: {
                waiting: number;
                applying: number;
                converged: number;
                failed: number;
                cancelled: number;
            }[];
        };
        RolloutTargetView: {
            node_id: string;
            batch: number;
            /** @enum {string} */
            state: "waiting" | "applying" | "converged" | "failed" | "cancelled";
            intent_id: string | null;
            intent_state: string | null;
            waiting_on: components["schemas"]["WaitingOn"];
            applied_config_version: string | null;
            failure_class: string | null;
            failure_code: string | null;
            failure_message: string | null;
            correlation_id: string | null;
            /** @enum {string|null} */
            recovery_phase: "restoring" | "complete" | "failed" | null;
            recovery_claim: {
                /** @enum {string} */
                class: "pre_mutation" | "post_mutation" | "unknown";
                code: string | null;
                at: string;
            } | null;
        };
        RolloutView: {
            rollout_id: string;
            /** @enum {string} */
            kind: "rollout" | "apply" | "rollback";
            config_version: string;
            /** @enum {string} */
            state: "applying" | "paused" | "converged" | "cancelled" | "rolled_back";
            paused_reason: string | null;
            batch_size: number;
            batches: number;
            current_batch: number;
            /** @enum {string} */
            recovery: "none" | "restoring" | "recovery_required";
            selector: {
                [key: string]: string;
            } | null;
            created_by: string;
            approval_id: string | null;
            rollback_of: string | null;
            rolled_back_by: string | null;
            correlation_id: string;
            created_at: string;
            updated_at: string;
            health: {
                /** @default 60000 */
                soak_ms: number;
                /** @default 0 */
                max_unhealthy_targets: number;
                /**
                 * @default pause
                 * @enum {string}
                 */
                on_unhealthy: "pause" | "rollback";
            } | null;
            gate: {
                batch: number;
                /** @enum {string} */
                state: "soaking" | "passed" | "failed" | "stopped";
                since: string;
                until: string | null;
                evidence: {
                    node_id: string;
                    stream_id: string | null;
                    /** @enum {string} */
                    reason: "unhealthy" | "not_running" | "offline" | "version_changed";
                    detail: string;
                    since: string | null;
                }[];
                /** @enum {string|null} */
                action: "opened" | "skipped" | "approval_required" | "failed" | null;
            } | null;
            target_counts: {
                waiting: number;
                applying: number;
                converged: number;
                failed: number;
                cancelled: number;
            };
            targets: components["schemas"]["RolloutTargetView"][];
        };
        StreamView: {
            stream_id: string;
            generation: number;
            /** @enum {string} */
            desired_state: "running" | "stopped";
            spec: {
                [key: string]: unknown;
            };
            placement: {
                nodes: string[];
                split: boolean;
            };
            action_id: string | null;
            observed: {
                [key: string]: {
                    generation: number;
                    state: string;
                    last_action_id: string | null;
                    health: {
                        /** @enum {string} */
                        status: "running" | "exited";
                        /** @default null */
                        exit_code: number | null;
                        /** @default 0 */
                        restarts: number;
                    } | null;
                    reported_at: string;
                };
            };
            intents: components["schemas"]["IntentView"][];
            deleting: boolean;
            deletion_requested_at: string | null;
            created_at: string;
            updated_at: string;
        };
        WaitingOn: {
            /** @enum {string} */
            kind: "node_unregistered" | "node_draining" | "node_offline" | "node_stale" | "mode" | "database_restored" | "retry" | "placement" | "job" | "attempt_queued" | "attempt_dispatched" | "ambiguous_attempt" | "report" | "stream_blocked" | "stream_converging" | "new_generation" | "batch" | "health_gate" | "recovery_hold" | "rollout_paused";
            message: string;
            node_id: string | null;
            stream_id: string | null;
            intent_id: string | null;
            attempt_id: string | null;
            at: string | null;
        } | null;
        WhyLink: {
            /** @enum {string} */
            relation: "queued" | "retried_after" | "reopened" | "reported" | "opened" | "desired" | "batch_started" | "restore_opened" | "gate_failed" | "rollout_created" | "approved" | "submitted";
            position: number;
            stream_id: string;
            type: string;
            event_id: string;
            actor: string;
            role: string;
            correlation_id: string;
            source: string;
            recorded_at: string;
            data: {
                [key: string]: unknown;
            };
        };
        ErrorEnvelope: {
            code: string;
            message: string;
            correlation_id: string;
            details: {
                [key: string]: unknown;
            };
        };
    };
    responses: never;
    parameters: {
        /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
        "X-Correlation-Id": string;
        /** @description A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409 */
        "Idempotency-Key": string;
        /** @description The generation the writer last saw (its ETag, `"3"`): another one is refused with 412 generation_conflict */
        "If-Match": string;
        /** @description `return=minimal` (RFC 7240): answered 204 with the ETag once the write commits, the stream's nodes reconciled by a job due at once rather than before the answer; other preferences are ignored */
        Prefer: string;
        /** @description The id of the last event received: the stream resumes after it (takes precedence over `after`) */
        "Last-Event-ID": string;
    };
    requestBodies: never;
    headers: {
        /** @description The request's correlation id: the caller's X-Correlation-Id when well-formed, else a new one */
        "X-Correlation-Id": string;
        /** @description The stream's generation, quoted (`"3"`): send it back as If-Match */
        ETag: string;
        /** @description The resource this request created */
        Location: string;
        /** @description `true`: the first answer to this Idempotency-Key, replayed; nothing was written again */
        "Idempotent-Replayed": "true";
        /** @description Seconds to wait before retrying */
        "Retry-After": string;
        /** @description Not to keep: the event stream is live (`no-cache`), an ID token is secret (`no-store`) */
        "Cache-Control": string;
        /** @description `no`: a proxy passes events on as they come */
        "X-Accel-Buffering": string;
        /** @description `return=minimal`: the answer leaves out the representation, as Prefer asked */
        "Preference-Applied": "return=minimal";
    };
    pathItems: never;
}
export type ApprovalSettings = components['schemas']['ApprovalSettings'];
export type ApprovalView = components['schemas']['ApprovalView'];
export type AttemptView = components['schemas']['AttemptView'];
export type ConfigVersionSummary = components['schemas']['ConfigVersionSummary'];
export type ConfigVersionView = components['schemas']['ConfigVersionView'];
export type EventView = components['schemas']['EventView'];
export type IntentView = components['schemas']['IntentView'];
export type NewRollout = components['schemas']['NewRollout'];
export type NodeCounts = components['schemas']['NodeCounts'];
export type NodeView = components['schemas']['NodeView'];
export type RecentReportsView = components['schemas']['RecentReportsView'];
export type ReconciliationSettings = components['schemas']['ReconciliationSettings'];
export type ReportRateView = components['schemas']['ReportRateView'];
export type RolloutSummary = components['schemas']['RolloutSummary'];
export type RolloutSummaryWithBatches = components['schemas']['RolloutSummaryWithBatches'];
export type RolloutTargetView = components['schemas']['RolloutTargetView'];
export type RolloutView = components['schemas']['RolloutView'];
export type StreamView = components['schemas']['StreamView'];
export type WaitingOn = components['schemas']['WaitingOn'];
export type WhyLink = components['schemas']['WhyLink'];
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
export type ParameterXCorrelationId = components['parameters']['X-Correlation-Id'];
export type ParameterIdempotencyKey = components['parameters']['Idempotency-Key'];
export type ParameterIfMatch = components['parameters']['If-Match'];
export type ParameterPrefer = components['parameters']['Prefer'];
export type ParameterLastEventId = components['parameters']['Last-Event-ID'];
export type HeaderXCorrelationId = components['headers']['X-Correlation-Id'];
export type HeaderETag = components['headers']['ETag'];
export type HeaderLocation = components['headers']['Location'];
export type HeaderIdempotentReplayed = components['headers']['Idempotent-Replayed'];
export type HeaderRetryAfter = components['headers']['Retry-After'];
export type HeaderCacheControl = components['headers']['Cache-Control'];
export type HeaderXAccelBuffering = components['headers']['X-Accel-Buffering'];
export type HeaderPreferenceApplied = components['headers']['Preference-Applied'];
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable";
                    };
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ready: boolean;
                        checks: {
                            [key: string]: {
                                ok: boolean;
                                detail?: string;
                            };
                        };
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ready: boolean;
                        checks: {
                            [key: string]: {
                                ok: boolean;
                                detail?: string;
                            };
                        };
                    };
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4": string;
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable";
                    };
                };
            };
        };
    };
    getOpenApi: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        openapi: string;
                        info: {
                            title: string;
                            version: string;
                        };
                        paths: {
                            [key: string]: unknown;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable";
                    };
                };
            };
        };
    };
    registerAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    node_id: string;
                    boot_id: string;
                    /** @default null */
                    agent_version?: string | null;
                    /** @default [] */
                    capabilities?: string[];
                    /** @default null */
                    data_address?: string | null;
                    /** @default null */
                    control_address?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role, node_mismatch, node_retired */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role" | "node_mismatch" | "node_retired";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    reportNodeState: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    node_id: string;
                    boot_id: string;
                    report_seq: number;
                    /**
                     * @default true
                     * @enum {boolean}
                     */
                    full?: true;
                    streams: {
                        stream_id: string;
                        generation: number;
                        state: string;
                        /** @default null */
                        last_action_id?: string | null;
                        /** @default null */
                        error?: string | null;
                        health?: {
                            /** @enum {string} */
                            status: "running" | "exited";
                            /** @default null */
                            exit_code?: number | null;
                            /** @default 0 */
                            restarts?: number;
                        };
                    }[];
                    /**
                     * @default {
                     *       "applied_version": null,
                     *       "recovery_points": []
                     *     }
                     */
                    configuration?: {
                        /** @default null */
                        applied_version?: string | null;
                        /** @default [] */
                        recovery_points?: {
                            ref: string;
                            config_version: string;
                        }[];
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        accepted: false;
                        reason: string;
                    };
                };
            };
            /** @description Accepted */
            202: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        accepted: true;
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role, node_mismatch, node_retired */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role" | "node_mismatch" | "node_retired";
                    };
                };
            };
            /** @description node_not_registered */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "node_not_registered";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    pollAttempts: {
        parameters: {
            query?: {
                wait?: number;
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        attempts: {
                            attempt_id: string;
                            intent_id: string;
                            operation: string;
                            stream_id: string | null;
                            generation: number;
                            config_version: string | null;
                            spec: {
                                [key: string]: unknown;
                            };
                            action_id: string | null;
                            lease_expires_at: string;
                            placement: {
                                index: number;
                                count: number;
                                peers: {
                                    node_id: string;
                                    data_address: string | null;
                                }[];
                            } | null;
                            flags: {
                                [key: string]: boolean;
                            };
                        }[];
                        removed_streams: {
                            stream_id: string;
                            generation: number;
                        }[];
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role, node_retired */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role" | "node_retired";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    recordAttemptResult: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    outcome: "succeeded" | "failed";
                    generation: number;
                    /**
                     * @default null
                     * @enum {string|null}
                     */
                    failure_class?: "temporary" | "permanent" | "stale_generation" | null;
                    /** @default null */
                    code?: string | null;
                    /** @default null */
                    message?: string | null;
                    /**
                     * @default null
                     * @enum {string|null}
                     */
                    mutation?: "pre_mutation" | "post_mutation" | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttemptView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role, node_retired */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role" | "node_retired";
                    };
                };
            };
            /** @description attempt_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "attempt_not_found";
                    };
                };
            };
            /** @description generation_mismatch */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "generation_mismatch";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    listNodes: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                selector?: string;
                liveness?: "online" | "stale" | "offline";
                maintenance?: "active" | "draining";
                search?: string;
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["NodeView"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    countNodes: {
        parameters: {
            query?: {
                selector?: string;
                liveness?: "online" | "stale" | "offline";
                maintenance?: "active" | "draining";
                search?: string;
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeCounts"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    getNode: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        node_id: string;
                        labels: {
                            [key: string]: string;
                        };
                        capabilities: string[];
                        data_address: string | null;
                        control_address: string | null;
                        agent_version: string | null;
                        /** @enum {string} */
                        maintenance: "active" | "draining";
                        /** @enum {string} */
                        liveness: "online" | "stale" | "offline";
                        /** @enum {string} */
                        mode: "observe" | "lifecycle" | "configuration";
                        /** @enum {string|null} */
                        mode_override: "observe" | "lifecycle" | "configuration" | null;
                        boot_id: string;
                        last_report_seq: number | null;
                        last_report_at: string | null;
                        last_seen_at: string;
                        applied_config_version: string | null;
                        desired_config_version: string | null;
                        registered_at: string;
                        reports: components["schemas"]["RecentReportsView"];
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description node_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "node_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    retireNode: {
        parameters: {
            query?: {
                force?: "true" | "false";
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
                /** @description A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409 */
                "Idempotency-Key"?: components["parameters"]["Idempotency-Key"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        node_id: string;
                        retired_at: string;
                        retired_by: string;
                        forced: boolean;
                        correlation_id: string;
                        superseded_intents: string[];
                        rollouts: string[];
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request, invalid_idempotency_key */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request" | "invalid_idempotency_key";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description node_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "node_not_found";
                    };
                };
            };
            /** @description idempotency_key_reused, idempotency_key_in_flight, node_in_running_rollout, node_has_live_intents */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "idempotency_key_reused" | "idempotency_key_in_flight" | "node_in_running_rollout" | "node_has_live_intents";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    listReportRates: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["ReportRateView"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    replaceNodeLabels: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    labels: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeView"];
                };
            };
            /** @description invalid_request, invalid_labels, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_labels" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description node_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "node_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    drainNode: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description node_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "node_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    undrainNode: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description node_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "node_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    setNodeMode: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string|null} */
                    mode: "observe" | "lifecycle" | "configuration" | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description node_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "node_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    getReconciliationSettings: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReconciliationSettings"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    setReconciliationMode: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    mode: "observe" | "lifecycle" | "configuration";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReconciliationSettings"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    getStream: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StreamView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description stream_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "stream_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    writeStream: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
                /** @description A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409 */
                "Idempotency-Key"?: components["parameters"]["Idempotency-Key"];
                /** @description The generation the writer last saw (its ETag, `"3"`): another one is refused with 412 generation_conflict */
                "If-Match"?: components["parameters"]["If-Match"];
                /** @description `return=minimal` (RFC 7240): answered 204 with the ETag once the write commits, the stream's nodes reconciled by a job due at once rather than before the answer; other preferences are ignored */
                Prefer?: components["parameters"]["Prefer"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    desired_state: "running" | "stopped";
                    /** @default {} */
                    spec?: {
                        command?: string;
                        args?: string[];
                        env?: {
                            [key: string]: string;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                    placement: {
                        nodes: string[];
                        /** @default false */
                        split?: boolean;
                    };
                    /**
                     * @description send to nodes a recovery claim holds (SPEC I13)
                     * @default false
                     */
                    override_hold?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StreamView"];
                };
            };
            /** @description No Content */
            204: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    ETag: components["headers"]["ETag"];
                    "Preference-Applied": components["headers"]["Preference-Applied"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request, invalid_idempotency_key */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request" | "invalid_idempotency_key";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description idempotency_key_reused, idempotency_key_in_flight, stream_deleting */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "idempotency_key_reused" | "idempotency_key_in_flight" | "stream_deleting";
                    };
                };
            };
            /** @description generation_conflict */
            412: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "generation_conflict";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description retired_nodes */
            422: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "retired_nodes";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    deleteStream: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
                /** @description A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409 */
                "Idempotency-Key"?: components["parameters"]["Idempotency-Key"];
                /** @description The generation the writer last saw (its ETag, `"3"`): another one is refused with 412 generation_conflict */
                "If-Match"?: components["parameters"]["If-Match"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StreamView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request, invalid_idempotency_key */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request" | "invalid_idempotency_key";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description stream_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "stream_not_found";
                    };
                };
            };
            /** @description idempotency_key_reused, idempotency_key_in_flight */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "idempotency_key_reused" | "idempotency_key_in_flight";
                    };
                };
            };
            /** @description generation_conflict */
            412: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "generation_conflict";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    runStreamAction: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
                /** @description A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409 */
                "Idempotency-Key"?: components["parameters"]["Idempotency-Key"];
                /** @description The generation the writer last saw (its ETag, `"3"`): another one is refused with 412 generation_conflict */
                "If-Match"?: components["parameters"]["If-Match"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    action: "restart";
                    /**
                     * @description send to nodes a recovery claim holds (SPEC I13)
                     * @default false
                     */
                    override_hold?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StreamView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request, invalid_idempotency_key */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request" | "invalid_idempotency_key";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description stream_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "stream_not_found";
                    };
                };
            };
            /** @description idempotency_key_reused, idempotency_key_in_flight, stream_not_running, stream_deleting */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "idempotency_key_reused" | "idempotency_key_in_flight" | "stream_not_running" | "stream_deleting";
                    };
                };
            };
            /** @description generation_conflict */
            412: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "generation_conflict";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    listStreams: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["StreamView"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    listIntents: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                state?: "pending" | "converging" | "retrying" | "converged" | "blocked" | "superseded" | "ambiguous";
                node_id?: string;
                stream_id?: string;
                node?: string;
                stream?: string;
                kind?: "lifecycle" | "configuration";
                rollout_id?: string;
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["IntentView"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    getIntent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        intent_id: string;
                        /** @enum {string} */
                        kind: "lifecycle" | "configuration";
                        node_id: string;
                        stream_id: string | null;
                        generation: number;
                        /** @enum {string|null} */
                        desired_state: "running" | "stopped" | null;
                        action_id: string | null;
                        config_version: string | null;
                        rollout_id: string | null;
                        /** @enum {string} */
                        state: "pending" | "converging" | "retrying" | "converged" | "blocked" | "superseded" | "ambiguous";
                        retry_count: number;
                        next_retry_at: string | null;
                        failure_class: string | null;
                        failure_code: string | null;
                        failure_message: string | null;
                        superseded_by: string | null;
                        awaiting_report_after: {
                            boot_id: string;
                            report_seq: number;
                        } | null;
                        waiting_on: components["schemas"]["WaitingOn"];
                        correlation_id: string;
                        created_at: string;
                        updated_at: string;
                        converged_at: string | null;
                        attempts: components["schemas"]["AttemptView"][];
                        causation: {
                            position: number;
                            type: string;
                            recorded_at: string;
                            actor: string;
                            correlation_id: string;
                        }[];
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description intent_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "intent_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    listDrift: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            node_id: string;
                            stream_id: string | null;
                            /** @enum {string} */
                            kind: "generation_mismatch" | "unhealthy" | "stale_node" | "config_drift";
                            desired_generation: number | null;
                            desired_state: string | null;
                            observed_generation: number | null;
                            observed_state: string | null;
                            last_seen_at: string | null;
                            desired_config_version: string | null;
                            applied_config_version: string | null;
                            health: {
                                /** @enum {string} */
                                status: "running" | "exited";
                                /** @default null */
                                exit_code: number | null;
                                /** @default 0 */
                                restarts: number;
                            } | null;
                        }[];
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    getAttempt: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        attempt_id: string;
                        intent_id: string;
                        node_id: string;
                        stream_id: string | null;
                        generation: number;
                        operation: string;
                        action_id: string | null;
                        config_version: string | null;
                        /** @enum {string} */
                        state: "queued" | "dispatched" | "succeeded" | "failed" | "ambiguous" | "superseded";
                        lease_expires_at: string | null;
                        dispatched_at: string | null;
                        completed_at: string | null;
                        failure_class: string | null;
                        code: string | null;
                        message: string | null;
                        mutation: string | null;
                        correlation_id: string;
                        created_at: string;
                        intent: components["schemas"]["IntentView"];
                        why: components["schemas"]["WhyLink"][];
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description attempt_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "attempt_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    listConfigVersions: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["ConfigVersionSummary"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    createConfigVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
                /** @description A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409 */
                "Idempotency-Key"?: components["parameters"]["Idempotency-Key"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    content: string;
                    /** @enum {string} */
                    format: "yaml" | "json" | "toml" | "text";
                    /** @default null */
                    parent?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConfigVersionView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request, invalid_idempotency_key */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request" | "invalid_idempotency_key";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description idempotency_key_reused, idempotency_key_in_flight */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "idempotency_key_reused" | "idempotency_key_in_flight";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description config_version_not_found */
            422: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "config_version_not_found";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    getConfigVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConfigVersionView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description config_version_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "config_version_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    applyNodeConfiguration: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
                /** @description A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409 */
                "Idempotency-Key"?: components["parameters"]["Idempotency-Key"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    config_version: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RolloutView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request, invalid_idempotency_key */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request" | "invalid_idempotency_key";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role, approval_required */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role" | "approval_required";
                    };
                };
            };
            /** @description idempotency_key_reused, idempotency_key_in_flight, target_in_rollout */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "idempotency_key_reused" | "idempotency_key_in_flight" | "target_in_rollout";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description config_version_not_found, unknown_nodes */
            422: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "config_version_not_found" | "unknown_nodes";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    rollbackNodeConfiguration: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
                /** @description A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409 */
                "Idempotency-Key"?: components["parameters"]["Idempotency-Key"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    config_version: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RolloutView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request, invalid_idempotency_key */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request" | "invalid_idempotency_key";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role, approval_required */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role" | "approval_required";
                    };
                };
            };
            /** @description idempotency_key_reused, idempotency_key_in_flight, target_in_rollout */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "idempotency_key_reused" | "idempotency_key_in_flight" | "target_in_rollout";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description config_version_not_found, unknown_nodes */
            422: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "config_version_not_found" | "unknown_nodes";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    listRollouts: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                state?: "applying" | "paused" | "converged" | "cancelled" | "rolled_back";
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["RolloutSummary"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    createRollout: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
                /** @description A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409 */
                "Idempotency-Key"?: components["parameters"]["Idempotency-Key"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewRollout"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RolloutView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request, invalid_idempotency_key */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request" | "invalid_idempotency_key";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role, approval_required */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role" | "approval_required";
                    };
                };
            };
            /** @description idempotency_key_reused, idempotency_key_in_flight, target_in_rollout */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "idempotency_key_reused" | "idempotency_key_in_flight" | "target_in_rollout";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description config_version_not_found, unknown_nodes, no_matching_nodes */
            422: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "config_version_not_found" | "unknown_nodes" | "no_matching_nodes";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    getRollout: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RolloutView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description rollout_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "rollout_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    getRolloutSummary: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RolloutSummaryWithBatches"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description rollout_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "rollout_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    listRolloutTargets: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                state?: "waiting" | "applying" | "converged" | "failed" | "cancelled";
                batch?: number;
                recovery?: "holding";
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["RolloutTargetView"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description rollout_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "rollout_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    runRolloutAction: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
                /** @description A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409 */
                "Idempotency-Key"?: components["parameters"]["Idempotency-Key"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    action: "pause" | "resume" | "cancel";
                } | {
                    /** @enum {string} */
                    action: "rollback";
                    config_version: string;
                } | ({
                    /** @enum {string} */
                    action: "rollback";
                    /** @enum {string} */
                    scope: "target";
                    node_id: string;
                } | {
                    /** @enum {string} */
                    action: "rollback";
                    /** @enum {string} */
                    scope: "failed" | "all_changed";
                });
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RolloutView"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RolloutView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request, invalid_idempotency_key */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request" | "invalid_idempotency_key";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role, approval_required */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role" | "approval_required";
                    };
                };
            };
            /** @description rollout_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "rollout_not_found";
                    };
                };
            };
            /** @description idempotency_key_reused, idempotency_key_in_flight, rollout_terminal, invalid_transition, rollback_in_progress, nothing_to_restore, target_in_rollout, rollout_superseded */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "idempotency_key_reused" | "idempotency_key_in_flight" | "rollout_terminal" | "invalid_transition" | "rollback_in_progress" | "nothing_to_restore" | "target_in_rollout" | "rollout_superseded";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description config_version_not_found, unknown_nodes, no_matching_nodes */
            422: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "config_version_not_found" | "unknown_nodes" | "no_matching_nodes";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    getApprovalSettings: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalSettings"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    listApprovals: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                status?: "pending" | "approved" | "rejected" | "expired";
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["ApprovalView"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    submitApproval: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
                /** @description A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409 */
                "Idempotency-Key"?: components["parameters"]["Idempotency-Key"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @default rollout
                     * @enum {string}
                     */
                    kind?: "rollout" | "apply" | "rollback";
                    config_version: string;
                    targets: {
                        nodes?: string[];
                        selector?: {
                            [key: string]: string;
                        };
                    };
                    /** @default 1 */
                    batch_size?: number;
                    health?: {
                        /** @default 60000 */
                        soak_ms?: number;
                        /** @default 0 */
                        max_unhealthy_targets?: number;
                        /**
                         * @default pause
                         * @enum {string}
                         */
                        on_unhealthy?: "pause" | "rollback";
                    };
                    /** @default null */
                    republished_from?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request, invalid_idempotency_key */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request" | "invalid_idempotency_key";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description approval_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "approval_not_found";
                    };
                };
            };
            /** @description idempotency_key_reused, idempotency_key_in_flight, approval_not_republishable */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "idempotency_key_reused" | "idempotency_key_in_flight" | "approval_not_republishable";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description config_version_not_found, unknown_nodes, no_matching_nodes */
            422: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "config_version_not_found" | "unknown_nodes" | "no_matching_nodes";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    getApproval: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description approval_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "approval_not_found";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    approveApproval: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role, self_approval_forbidden */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role" | "self_approval_forbidden";
                    };
                };
            };
            /** @description approval_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "approval_not_found";
                    };
                };
            };
            /** @description approval_not_pending, target_in_rollout */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "approval_not_pending" | "target_in_rollout";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description unknown_nodes */
            422: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unknown_nodes";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    rejectApproval: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default null */
                    reason?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalView"];
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role, self_approval_forbidden */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role" | "self_approval_forbidden";
                    };
                };
            };
            /** @description approval_not_found */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "approval_not_found";
                    };
                };
            };
            /** @description approval_not_pending, target_in_rollout */
            409: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "approval_not_pending" | "target_in_rollout";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    listEvents: {
        parameters: {
            query?: {
                after?: string;
                stream_id?: string;
                type?: string | string[];
                correlation_id?: string;
                actor?: string;
                since?: string;
                until?: string;
                reports?: "changed" | "all" | "none";
                before?: string;
                order?: "asc" | "desc";
                limit?: number;
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["EventView"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    followEvents: {
        parameters: {
            query?: {
                after?: string;
                stream_id?: string;
                type?: string | string[];
                correlation_id?: string;
                actor?: string;
                since?: string;
                until?: string;
                reports?: "changed" | "all" | "none";
            };
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
                /** @description The id of the last event received: the stream resumes after it (takes precedence over `after`) */
                "Last-Event-ID"?: components["parameters"]["Last-Event-ID"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Accel-Buffering": components["headers"]["X-Accel-Buffering"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description too_many_streams */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "too_many_streams";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    whoami: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        role: "viewer" | "operator" | "admin";
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description unauthenticated, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unauthenticated" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description forbidden, no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "forbidden" | "no_role";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description overloaded */
            429: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "overloaded";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
    listAuthProviders: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        providers: {
                            name: string;
                            issuer: string;
                            client_id: string;
                            scopes: string[];
                            authorization_endpoint: string | null;
                            unavailable: string | null;
                        }[];
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable";
                    };
                };
            };
        };
    };
    exchangeAuthCode: {
        parameters: {
            query?: never;
            header?: {
                /** @description Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one */
                "X-Correlation-Id"?: components["parameters"]["X-Correlation-Id"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    provider: string;
                    code: string;
                    code_verifier: string;
                    /** Format: uri */
                    redirect_uri: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id_token: string;
                        id: string;
                        /** @enum {string} */
                        role: "viewer" | "operator" | "admin";
                    };
                };
            };
            /** @description invalid_request, invalid_query, invalid_path, invalid_json, invalid_content_encoding, request_aborted, malformed_request */
            400: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "invalid_request" | "invalid_query" | "invalid_path" | "invalid_json" | "invalid_content_encoding" | "request_aborted" | "malformed_request";
                    };
                };
            };
            /** @description sso_failed, token_expired, token_invalid, unknown_issuer */
            401: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "sso_failed" | "token_expired" | "token_invalid" | "unknown_issuer";
                    };
                };
            };
            /** @description no_role */
            403: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "no_role";
                    };
                };
            };
            /** @description unknown_provider */
            404: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unknown_provider";
                    };
                };
            };
            /** @description body_too_large */
            413: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "body_too_large";
                    };
                };
            };
            /** @description unsupported_encoding, unsupported_media_type */
            415: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "unsupported_encoding" | "unsupported_media_type";
                    };
                };
            };
            /** @description headers_too_large */
            431: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "headers_too_large";
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "internal";
                    };
                };
            };
            /** @description database_unavailable, issuer_unavailable */
            503: {
                headers: {
                    "X-Correlation-Id": components["headers"]["X-Correlation-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] & {
                        /** @enum {string} */
                        code?: "database_unavailable" | "issuer_unavailable";
                    };
                };
            };
        };
    };
}
