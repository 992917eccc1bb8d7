import { takeFrames } from './event-frames.ts';

/**
 * How the console learns that the fleet changed: it follows the Hub's event stream
 * (`GET /api/v1/events/stream`). EventSource cannot send an Authorization header, so the stream is read with
 * fetch(). One connection per token serves every listener. It reconnects on its own, resuming from the last
 * event id. Reports that repeat their node's last state are left out: they change only a node's last contact,
 * which the periodic reload shows, and a large fleet's heartbeats would reload every page several times a second.
 *
 * Listeners are told at most once per MIN_INTERVAL_MS however fast the fleet changes: a busy fleet changes
 * continuously, and each notice costs every open page a reload on the Hub. A hidden tab is told nothing (what
 * it missed is one notice when it is shown again), and after HIDDEN_CLOSE_MS hidden it closes its stream too,
 * reopening it at the end of the log when shown: a tab left in the background a day costs the Hub nothing.
 */
const COALESCE_MS = 150;
const MIN_INTERVAL_MS = 2_000;
// Time alone changes some of what pages show (liveness, approval expiry) without an event: reload anyway.
const REFRESH_MS = 15_000;
const HIDDEN_CLOSE_MS = 60_000;
const RETRY_MS = [1000, 2000, 5000, 10000];

interface Follower {
  listeners: Set<() => void>;
  stop: AbortController;
}

const followers = new Map<string, Follower>();

/**
 * Calls `listener` on changes of the fleet as the token sees them. With `spacedMs`, at most once per
 * `spacedMs`, the last notice of a gap coming at its end: for a view that costs the Hub more than it changes
 * (counting each node's reports of the hour).
 */
export function onFleetChange(token: string, listener: () => void, spacedMs = 0): () => void {
  if (spacedMs > 0) {
    const spaced = spacedListener(listener, spacedMs);
    const stop = onFleetChange(token, spaced.call);
    return () => {
      spaced.stop();
      stop();
    };
  }
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

interface Notifier {
  notify(): void;
  /** Set while the stream is closed for a hidden tab: its reopening, not the tab being shown, tells of what was missed. */
  reopening: boolean;
}

function spacedListener(listener: () => void, spacedMs: number): { call(): void; stop(): void } {
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const run = () => {
    timer = null;
    // Hidden meanwhile: the notice that comes when it is shown again runs it.
    if (document.hidden) return;
    last = Date.now();
    listener();
  };
  return {
    call() {
      timer ??= setTimeout(run, Math.max(0, last + spacedMs - Date.now()));
    },
    stop() {
      if (timer) clearTimeout(timer);
    },
  };
}

/** Tells `f`'s listeners of changes: coalesced, spaced, and held while the tab is hidden. */
function notifier(f: Follower): Notifier {
  const n: Notifier = { notify: () => {}, reopening: false };
  let pending: ReturnType<typeof setTimeout> | null = null;
  let refresh: ReturnType<typeof setTimeout> | null = null;
  let missed = false;
  let last = 0;
  const notify = () => {
    pending ??= setTimeout(flush, Math.max(COALESCE_MS, last + MIN_INTERVAL_MS - Date.now()));
  };
  // The periodic reload comes REFRESH_MS after the last one, so a fleet that changes often gets none more.
  const rearm = () => {
    if (refresh) clearTimeout(refresh);
    refresh = setTimeout(notify, REFRESH_MS);
  };
  function flush() {
    pending = null;
    if (document.hidden) {
      missed = true;
      return;
    }
    missed = false;
    last = Date.now();
    rearm();
    for (const l of f.listeners) l();
  }
  n.notify = notify;
  const shown = () => {
    if (!document.hidden && missed && !n.reopening) notify();
  };
  rearm();
  document.addEventListener('visibilitychange', shown);
  f.stop.signal.addEventListener(
    'abort',
    () => {
      if (refresh) clearTimeout(refresh);
      if (pending) clearTimeout(pending);
      document.removeEventListener('visibilitychange', shown);
    },
    { once: true },
  );
  return n;
}

/** Resolves once the tab is shown (or `signal` aborts). */
function untilShown(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      if (document.hidden && !signal.aborted) return;
      document.removeEventListener('visibilitychange', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    document.addEventListener('visibilitychange', done);
    signal.addEventListener('abort', done);
    done();
  });
}

async function follow(token: string, f: Follower): Promise<void> {
  let lastId: string | null = null;
  let failures = 0;
  const notices = notifier(f);
  const notify = () => notices.notify();
  while (!f.stop.signal.aborted) {
    // This connection ends when the follower stops, or once the tab has been hidden HIDDEN_CLOSE_MS.
    const connection = new AbortController();
    const end = () => connection.abort();
    f.stop.signal.addEventListener('abort', end, { once: true });
    let hiding: ReturnType<typeof setTimeout> | null = null;
    const visibility = () => {
      if (document.hidden) hiding ??= setTimeout(end, HIDDEN_CLOSE_MS);
      else if (hiding) {
        clearTimeout(hiding);
        hiding = null;
      }
    };
    visibility();
    document.addEventListener('visibilitychange', visibility);
    try {
      const res = await fetch('/api/v1/events/stream?reports=changed', {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
        signal: connection.signal,
      });
      if (!res.ok || !res.body) throw new Error(`event stream answered ${res.status}`);
      failures = 0;
      notices.reopening = false;
      // Whatever happened before the stream started (or while it was down, without an id to resume from)
      // is caught up by one reload.
      notify();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const { frames, rest } = takeFrames(buffer + value);
        buffer = rest;
        for (const frame of frames) {
          if (frame.id !== undefined) lastId = frame.id;
          // The opening frame is no change: the reload above covers it, however late it comes.
          if (frame.event) notify();
        }
      }
    } catch {
      // Closed, refused or lost: below decides when to open it again.
    } finally {
      f.stop.signal.removeEventListener('abort', end);
      document.removeEventListener('visibilitychange', visibility);
      if (hiding) clearTimeout(hiding);
    }
    if (f.stop.signal.aborted) return;
    if (document.hidden) {
      // Nothing is read while hidden; shown again, the stream opens at the end of the log and its first
      // notice reloads what the tab shows, rather than replaying what it missed.
      notices.reopening = true;
      await untilShown(f.stop.signal);
      lastId = null;
      failures = 0;
      continue;
    }
    await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]));
  }
}
