import net from 'node:net';

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.[01](?=\r\n)/;

/** One client connection through the front, as the front saw it. */
export interface FrontConnection {
  /** The upstream it went to (its index in the front's list). */
  upstream: number;
  /** When the upstream accepted it (Date.now()). */
  opened: number;
  /** Each request the client sent on it, in order (a client keeps a connection for many). */
  requests: FrontRequest[];
  /** When the connection ended, or null while it is open. */
  closed: number | null;
}

export interface FrontRequest {
  /** Its request line: `GET /api/v1/agent/attempts?wait=2 HTTP/1.1`. */
  line: string;
  sent: number;
  /** When the upstream's first byte after it reached the client; null while it waits (a held long poll). */
  answered: number | null;
}

export interface RoundRobinFront {
  url: string;
  /** Every connection handed to an upstream, in the order they were opened. */
  connections: FrontConnection[];
  /** Ends every open connection and goes on taking new ones, as a load balancer's restart or a network blip does. */
  drop(): void;
  close(): Promise<void>;
}

/**
 * A round-robin TCP front, as a load balancer in TCP mode is: each new client connection goes to the next of
 * `upstreams` (ports on 127.0.0.1) in turn, skipping one that refuses the connection; when no upstream takes
 * it, the client's connection is closed. A connection lives and dies with its upstream's: when a Hub dies,
 * its clients' connections end, so they notice at once and connect again (to another Hub).
 */
export async function startRoundRobin(upstreams: readonly number[]): Promise<RoundRobinFront> {
  const connections: FrontConnection[] = [];
  const sockets = new Set<net.Socket>();
  let turn = 0;

  const hand = (client: net.Socket, first: number) => {
    const connectTo = (tried: number) => {
      if (tried === upstreams.length) return client.destroy();
      const index = (first + tried) % upstreams.length;
      const upstream = net.connect(upstreams[index]!, '127.0.0.1');
      upstream.once('error', () => connectTo(tried + 1));
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        if (client.destroyed) return upstream.destroy();
        sockets.add(upstream);
        const seen: FrontConnection = { upstream: index, opened: Date.now(), requests: [], closed: null };
        connections.push(seen);
        // A client sends a request's head in one write, so a chunk that starts with a request line starts a request.
        client.on('data', (chunk: Buffer) => {
          const line = REQUEST_LINE.exec(chunk.toString('latin1', 0, 2048));
          if (line) seen.requests.push({ line: line[0], sent: Date.now(), answered: null });
        });
        upstream.on('data', () => {
          const latest = seen.requests.at(-1);
          if (latest) latest.answered ??= Date.now();
        });
        // Both directions piped: an end is passed on after what came before it; a reset ends the other side too.
        client.pipe(upstream);
        upstream.pipe(client);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
        upstream.on('close', () => {
          sockets.delete(upstream);
          seen.closed ??= Date.now();
          client.destroySoon();
        });
        client.on('close', () => upstream.destroy());
      });
    };
    connectTo(0);
  };

  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    // Held (not read) until an upstream takes it: what the client sends meanwhile waits in its buffer.
    client.on('error', () => client.destroy());
    hand(client, turn);
    turn = (turn + 1) % upstreams.length;
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    connections,
    drop() {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      const closed = new Promise((done) => server.close(done));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
