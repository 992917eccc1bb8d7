/**
 * How the console learns that the fleet changed: the one module to change when the Hub's event stream
 * (`GET /api/v1/events/stream`, SSE with bearer auth, read with fetch() streaming since EventSource cannot
 * send headers) is on main. Until then it polls: every listener is told to reload every 2 s.
 */
const POLL_MS = 2000;

export function onFleetChange(_token: string, listener: () => void): () => void {
  const timer = setInterval(listener, POLL_MS);
  return () => clearInterval(timer);
}
