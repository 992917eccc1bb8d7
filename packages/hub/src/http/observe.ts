import type { HubContext } from './context.ts';

/** One answered request, as the log and the HTTP metrics see it: by route pattern, not raw path. */
export interface Observed {
  method: string;
  route: string;
  status: number;
  seconds: number;
  correlationId: string;
  principal: string | undefined;
}

/**
 * Requests a fleet and its viewers make all the time: agents' registrations, reports, polls and results, and
 * every read (probes, scrapes, and the console, which reloads its page every 15 s and lists a fleet 100 nodes
 * a request). Answered well, they log at debug, not info: at fleet scale they would be most of the log (a
 * 50,000-node fleet reports 5,000 times a second; one console tab on a 10,000-node fleet, 100 lines every
 * 15 s) and a noticeable part of the Hub's CPU. Their failures log at info, as every write does, but for a 503:
 * while the database is away every agent's poll fails alike, a line each, where the Hub's `request failed` line
 * and its repeats (repeated-failures.ts) already say so once a minute.
 */
const routine = (method: string, route: string): boolean => method === 'GET' || method === 'HEAD' || route.startsWith('/api/v1/agent/');
/** Logs one line for a request and feeds the HTTP metrics. */
export function observe(hub: HubContext, request: Observed): void {
  const { method, route, status, seconds } = request;
  hub.metrics.httpRequests.inc({ method, route, status: String(status) });
  hub.metrics.httpDuration.observe({ method, route }, seconds);
  const level = (status < 400 || status === 503) && routine(method, route) ? 'debug' : 'info';
  // Off by default for a fleet's routine requests: not even the line is built (winston filters it late).
  if (!hub.logger.isLevelEnabled(level)) return;
  hub.logger.log(level, 'request', {
    correlation_id: request.correlationId,
    method,
    route,
    status,
    ms: Math.round(seconds * 1000),
    principal: request.principal,
  });
}
