import { z } from 'zod';

/**
 * A stream's health as its node's executor observes it, beside its state (docs/agent-protocol.md, "Health"):
 * whether its process runs or exited on its own (with its exit code: null when a signal ended it or the
 * status is unknown), and how often it was started again after exiting on its own within the agent's health
 * window. Optional: an agent that does not report health is accepted as before, and its streams' health is
 * unknown. Every field is a fact that changes only when the stream does, so a repeated report stays small.
 */
export const StreamHealth = z
  .object({
    status: z.enum(['running', 'exited']),
    exit_code: z.number().int().min(-1_000_000).max(1_000_000).nullable().default(null),
    restarts: z.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();
export type StreamHealth = z.infer<typeof StreamHealth>;

/** The Hub's verdict on a reported health: a stream that exited on its own, or restarted within the window, is unhealthy. */
export type HealthVerdict = 'healthy' | 'unhealthy' | 'unknown';

export function healthVerdict(health: StreamHealth | null | undefined): HealthVerdict {
  if (!health) return 'unknown';
  return health.status === 'exited' || health.restarts > 0 ? 'unhealthy' : 'healthy';
}

/** How a report stores a health: `[status, exit_code, restarts]`. */
export type StoredHealth = [status: StreamHealth['status'], exit_code: number | null, restarts: number];

export const storedHealth = (h: StreamHealth): StoredHealth => [h.status, h.exit_code, h.restarts];
export const healthOf = ([status, exit_code, restarts]: StoredHealth): StreamHealth => ({ status, exit_code, restarts });
