/**
 * How the console learns that the fleet changed: it follows the Hub's event stream
 * (`GET /api/v1/events/stream`). EventSource cannot send an Authorization header, so the stream is read with
 * fetch(). One connection per token serves every listener; a burst of events becomes one reload. It
 * reconnects on its own, resuming from the last event id. Reports that repeat their node's last state are left
 * out: they change only a node's last contact, which the periodic reload shows, and a large fleet's heartbeats
 * would reload every page several times a second.
 */
const COALESCE_MS = 150;
// Time alone changes some of what pages show (liveness, approval expiry) without an event: reload anyway.
const REFRESH_MS = 15_000;
const RETRY_MS = [1000, 2000, 5000, 10000];

interface Follower {
  listeners: Set<() => void>;
  stop: AbortController;
}

const followers = new Map<string, Follower>();

export function onFleetChange(token: string, listener: () => void): () => void {
  let f = followers.get(token);
  if (!f) {
    f = { listeners: new Set(), stop: new AbortController() };
    followers.set(token, f);
    void follow(token, f);
  }
  f.listeners.add(listener);
  const follower = f;
  return () => {
    follower.listeners.delete(listener);
    if (follower.listeners.size > 0) return;
    follower.stop.abort();
    followers.delete(token);
  };
}

async function follow(token: string, f: Follower): Promise<void> {
  let lastId: string | null = null;
  let failures = 0;
  let pending: ReturnType<typeof setTimeout> | null = null;
  const notify = () => {
    pending ??= setTimeout(() => {
      pending = null;
      for (const l of f.listeners) l();
    }, COALESCE_MS);
  };
  const refresh = setInterval(notify, REFRESH_MS);
  f.stop.signal.addEventListener('abort', () => clearInterval(refresh), { once: true });
  while (!f.stop.signal.aborted) {
    try {
      const res = await fetch('/api/v1/events/stream?reports=changed', {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
        signal: f.stop.signal,
      });
      if (!res.ok || !res.body) throw new Error(`event stream answered ${res.status}`);
      failures = 0;
      // Whatever happened before the stream started (or while it was down, without an id to resume from)
      // is caught up by one reload.
      notify();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: ?(.*)$/m.exec(frame)?.[1];
          if (id !== undefined) {
            lastId = id;
            notify();
          }
        }
      }
    } catch {
      if (f.stop.signal.aborted) return;
    }
    await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]));
  }
}
