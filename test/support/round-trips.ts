import net from 'node:net';

/**
 * One round trip a client sent: a simple-protocol Query, or an extended-protocol exchange ended by Sync. A
 * Query that only prepares statements (the Hub's PREPAREs, after any DEALLOCATEs, which go once per statement
 * and connection: database/connection.ts) is a `prepare`.
 */
export type RoundTrip = 'simple' | 'extended' | 'prepare';

/** The round trips of a connection's steady state: those that run statements, not those that prepare them. */
export const running = (roundTrips: readonly RoundTrip[]): RoundTrip[] => roundTrips.filter((r) => r !== 'prepare');

export interface CountingProxy {
  /** The server's URL, through the proxy. */
  url: string;
  /** Every round trip sent through the proxy, in order. */
  roundTrips: RoundTrip[];
  close(): Promise<void>;
}

const PROTOCOL_3 = 196608;
const QUERY = 'Q'.charCodeAt(0);
const SYNC = 'S'.charCodeAt(0);

/**
 * A TCP proxy in front of PostgreSQL that counts what reaches the server: it reads the frontend messages of
 * every connection through it, and records a round trip for each simple Query and each Sync (the end of an
 * extended-protocol exchange, which the server answers with ReadyForQuery), whatever sent them.
 */
export async function countingProxy(url: string): Promise<CountingProxy> {
  const target = new URL(url);
  const roundTrips: RoundTrip[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    let pending = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        // Before the startup message (an SSL or GSS request may come first) messages have no type byte.
        const header = started ? 5 : 8;
        if (pending.length < header) break;
        const length = started ? 1 + pending.readInt32BE(1) : pending.readInt32BE(0);
        if (pending.length < length) break;
        if (!started) started = pending.readInt32BE(4) === PROTOCOL_3;
        else if (pending[0] === QUERY) roundTrips.push(/^(PREPARE|DEALLOCATE) /.test(pending.toString('utf8', 5, 16)) ? 'prepare' : 'simple');
        else if (pending[0] === SYNC) roundTrips.push('extended');
        pending = pending.subarray(length);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as net.AddressInfo).port);
  return {
    url: proxied.toString(),
    roundTrips,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((closed) => server.close(closed));
    },
  };
}
