import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { EnvHttpProxyAgent, type Dispatcher } from 'undici';

/** The variables of a process's environment the egress proxy is named by. */
export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/**
 * Connections for `fetch` through the egress proxy `env` names, as curl reads it: `HTTPS_PROXY` for https://,
 * `HTTP_PROXY` for http:// (lower-case names first), none for a host `NO_PROXY` lists. Through a proxy the
 * connection is a CONNECT tunnel, and the server's certificate is verified at its far end against `ca` when
 * given, else the system's CAs, as without one.
 */
export function proxiedDispatcher(env: ProxyEnv, ca?: string): Dispatcher {
  return new EnvHttpProxyAgent({
    httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? '',
    httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? '',
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
    ...(ca === undefined ? {} : { connect: { ca }, requestTls: { ca } }),
  });
}

/**
 * The same for clients on node:http and node:https (the AWS SDK's), by Node's own proxy support (`proxyEnv`,
 * Node 24.5), which reads the same variables alike: https:// through a CONNECT tunnel, http:// as a request
 * the proxy forwards.
 */
export function proxiedAgents(env: ProxyEnv): { httpAgent: HttpAgent; httpsAgent: HttpsAgent } {
  return { httpAgent: new HttpAgent({ keepAlive: true, proxyEnv: env }), httpsAgent: new HttpsAgent({ keepAlive: true, proxyEnv: env }) };
}
