import type { EventEmitter } from 'node:events';

/**
 * Requests to a benchmark's simulated agents, running on a worker thread or in a child process: `send`
 * posts one, the peer answers with `{ ok, value | error }`. Once the peer ends (error or exit), every
 * request, pending or new, fails with the reason.
 */
export function agentsRpc<Request>(peer: EventEmitter, send: (request: Request) => void, what: 'thread' | 'process') {
  let ended: Error | null = null;
  // Registered before any request's listeners, so `ended` holds the reason when they run.
  const end = (reason: unknown, signal?: NodeJS.Signals | null) => {
    ended ??= reason instanceof Error ? reason : new Error(`the agents' ${what} ended (${signal ?? `exit code ${String(reason)}`})`);
  };
  peer.on('error', end);
  peer.on('exit', end);
  return <T>(request: Request): Promise<T> =>
    new Promise((resolve, reject) => {
      if (ended) return reject(ended);
      const settle = () => {
        peer.off('message', onMessage);
        peer.off('error', onEnd);
        peer.off('exit', onEnd);
      };
      const onMessage = (m: { ok: true; value: T } | { ok: false; error: string }) => {
        settle();
        if (m.ok) resolve(m.value);
        else reject(new Error(`agents: ${m.error}`));
      };
      const onEnd = () => {
        settle();
        reject(ended ?? new Error(`the agents' ${what} ended`));
      };
      peer.on('message', onMessage);
      peer.on('error', onEnd);
      peer.on('exit', onEnd);
      send(request);
    });
}
