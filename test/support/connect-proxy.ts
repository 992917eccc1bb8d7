import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/** An egress proxy that tunnels (HTTP CONNECT) and nothing else, as a fleet's network may make nodes use. */
export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`, for HTTPS_PROXY / HTTP_PROXY. */
  url: string;
  /** The `host:port` of every tunnel asked for, in order. */
  tunnels: string[];
  close(): Promise<void>;
}

/**
 * `hosts` names hosts only the proxy can resolve (name → address), as the proxy's network's DNS: a client
 * reaches them through the proxy or not at all.
 */
export async function startConnectProxy(hosts: Record<string, string> = {}): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const keep = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  // A request that is not a CONNECT is not proxied: only tunnels pass.
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client: Socket, head: Buffer) => {
    keep(client);
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), hosts[host!] ?? host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    keep(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
