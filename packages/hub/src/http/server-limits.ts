import type { RequestListener, Server } from 'node:http';
import type { Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import type { ConfigFile } from '../config.ts';

/**
 * What the Hub's HTTP server holds for its clients, in one place (README "Configuration", docs/http-api.md
 * "Connections and their limits"). A client that is slow, broken or hostile gets a bounded share of the Hub:
 * a connection slot among `maxConnections`, deadlines for its request's headers and body, and no slot once
 * nothing moves on its connection. None cuts an agent's long poll or an event stream: their requests are
 * received in full before they are held, and both answer or write within `IDLE_TIMEOUT_MS`.
 */
export interface ServerLimits {
  /** Connections held at once; the next is closed as it is accepted, before a byte is read (`control_api.max_connections`). */
  maxConnections: number;
  /** From a request's first byte to the end of its headers (`control_api.headers_timeout_ms`). */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body (`control_api.request_timeout_ms`). */
  requestTimeoutMs: number;
  /** No byte moving either way on a connection in the middle of a request or an answer (IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
}

/**
 * How long an idle connection stays open. An agent holds a long poll on one connection and reports on another,
 * every 10 s by default: with Node's 5 s every report came on a new connection (over HTTPS, a new TLS
 * handshake), a thousand a second for 10,000 nodes. Longer than that interval with room to spare; clients read
 * it from the `Keep-Alive` header, and a proxy in front should close its idle connections to the Hub sooner.
 */
export const KEEP_ALIVE_MS = 65_000;

/**
 * A connection on which no byte moves either way for this long, in the middle of a request or an answer, is
 * closed: a client that stops reading an event stream would otherwise hold the stream, its follower of the
 * log and its slot for good. Longer than a long poll's longest wait (60 s) and an event stream's heartbeat
 * (15 s); between requests the keep-alive timeout applies instead.
 */
export const IDLE_TIMEOUT_MS = 120_000;

/** Request headers, the request line included, larger than this are refused 431 (Node's own limit). */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * How often Node looks for requests past their headers or request timeout: a request is cut within this
 * much of its deadline (Node's 30 s let a 60 s headers timeout run 90 s).
 */
export const TIMEOUT_CHECK_EVERY_MS = 1_000;

export function serverLimits(api: ConfigFile['control_api'], idleTimeoutMs = IDLE_TIMEOUT_MS): ServerLimits {
  return { maxConnections: api.max_connections, headersTimeoutMs: api.headers_timeout_ms, requestTimeoutMs: api.request_timeout_ms, idleTimeoutMs };
}

/**
 * How many connections the kernel holds accepted for the Hub before it takes them: as many as it may hold
 * (HAProxy's default too), since a fleet reconnecting at once (a Hub restarted) arrives faster than one thread
 * accepts, and each connection a full queue drops comes back only at TCP's next SYN retry (1, 3, 7, 15 s…).
 * Node's default is 511. Linux caps it at `net.core.somaxconn` (4096 by default) and the SYNs not yet
 * answered at `net.ipv4.tcp_max_syn_backlog`: README "Sizing" says when to raise them.
 */
export const listenBacklog = (limits: ServerLimits): number => limits.maxConnections;

/** The options the server is created with: what Node reads only then. */
export const serverOptions = () => ({ maxHeaderSize: MAX_HEADER_BYTES, connectionsCheckingInterval: TIMEOUT_CHECK_EVERY_MS });

/** What the server counts for /metrics: each accepted connection, and each refused at `maxConnections`. */
export interface ConnectionCounts {
  opened(): void;
  closed(): void;
  refused(): void;
}

/** Applies `limits` to `server`, counting its connections into `counts`. */
export function limitServer(server: Server, limits: ServerLimits, counts: ConnectionCounts): void {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.timeout = limits.idleTimeoutMs;
  server.maxConnections = limits.maxConnections;
  server.on('connection', (socket) => {
    counts.opened();
    socket.once('close', () => counts.closed());
  });
  server.on('drop', () => counts.refused());
}

/** Descriptors kept for what is not a client: the database pool, files, the log archive's uploads. */
const RESERVED_DESCRIPTORS = 1_024;

/**
 * A warning when `maxConnections` cannot be reached: past the process's open-file limit, accepting fails (the
 * connection is closed unanswered) and so does every file and database connection the Hub opens. Linux only
 * (it reads /proc); elsewhere, and when the limit is unlimited, null.
 */
export function descriptorWarning(limits: ServerLimits, limitsFile = '/proc/self/limits'): string | null {
  let text: string;
  try {
    text = readFileSync(limitsFile, 'utf8');
  } catch {
    return null;
  }
  const soft = /^Max open files\s+(\d+)/m.exec(text)?.[1];
  if (soft === undefined || limits.maxConnections + RESERVED_DESCRIPTORS <= Number(soft)) return null;
  return `control_api.max_connections is ${limits.maxConnections} but the Hub may open only ${soft} files: raise its limit (ulimit -n, LimitNOFILE) to ${limits.maxConnections + RESERVED_DESCRIPTORS} or lower max_connections`;
}

/** Requests one connection may have received and not yet answered: agents, the CLI and browsers send one at a time. */
export const MAX_IN_FLIGHT = 16;

/**
 * `listener`, closing a connection that pipelines more than MAX_IN_FLIGHT requests ahead of their answers. Node
 * runs every request in what it reads at once (64 KB: some 1,300 short GETs) before it stops reading, and each
 * holds its answer until those ahead of it are written: a client that never reads would hold them all.
 */
export function limitPipelining(listener: RequestListener): RequestListener {
  const inFlight = new WeakMap<Socket, number>();
  return (req, res) => {
    const { socket } = req;
    const held = (inFlight.get(socket) ?? 0) + 1;
    if (held > MAX_IN_FLIGHT) {
      socket.destroy();
      return;
    }
    inFlight.set(socket, held);
    res.once('close', () => inFlight.set(socket, inFlight.get(socket)! - 1));
    listener(req, res);
  };
}
