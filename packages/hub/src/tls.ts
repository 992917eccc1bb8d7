import { caFault, tlsPairFault } from '@fleetplane/core';
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { Agent, type Dispatcher } from 'undici';
import { ConfigError } from './start-failure.ts';

/** The Hub's certificate and key (PEM), and the files they were read from (read again on SIGHUP). */
export interface TlsPair {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
  /** When the certificate expires: `/metrics` shows it, so that a renewal is alerted on before it is late. */
  notAfter: Date;
}

function read(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`${what} ${path} cannot be read: ${(e as Error).message}`);
  }
}

/**
 * The pair in FLEETPLANE_TLS_CERT and FLEETPLANE_TLS_KEY, checked (tlsPairFault): a pair that cannot serve TLS
 * is refused with the reason, never served or half-served. Null when neither is set; one without the other is
 * refused, as a Hub meant to serve HTTPS must not fall back to plain HTTP.
 */
export function readTlsPair(certFile: string | undefined, keyFile: string | undefined, now: Date): TlsPair | null {
  if (!certFile && !keyFile) return null;
  if (!certFile || !keyFile) throw new ConfigError('FLEETPLANE_TLS_CERT and FLEETPLANE_TLS_KEY go together: set both to serve HTTPS, or neither');
  const cert = read(certFile, 'FLEETPLANE_TLS_CERT');
  const key = read(keyFile, 'FLEETPLANE_TLS_KEY');
  const fault = tlsPairFault(cert, key, now);
  if (fault) throw new ConfigError(`FLEETPLANE_TLS_CERT ${certFile} and FLEETPLANE_TLS_KEY ${keyFile} cannot serve TLS: ${fault}`);
  return { certFile, keyFile, cert, key, notAfter: new X509Certificate(cert).validToDate };
}

/** A private key file others may read is a leaked key waiting to happen: said at start, not refused. */
export function keyFileExposed(keyFile: string): boolean {
  return (statSync(keyFile).mode & 0o077) !== 0;
}

/**
 * The CA certificate in `caFile` (`name` says which setting named it), or undefined when no file is given: the
 * system's CAs. The file is read and checked now; one that is not a PEM certificate is refused.
 */
export function trustedCa(caFile: string | null | undefined, name: string): string | undefined {
  if (!caFile) return undefined;
  const ca = read(caFile, name);
  const fault = caFault(ca);
  if (fault) throw new ConfigError(`${name} ${caFile} is ${fault}`);
  return ca;
}

/** Connections that trust only the CA in `caFile` (trustedCa), or undefined when no file is given. */
export function trusting(caFile: string | null | undefined, name: string): Dispatcher | undefined {
  const ca = trustedCa(caFile, name);
  return ca === undefined ? undefined : new Agent({ connect: { ca } });
}

/**
 * Error codes of a TLS handshake that failed: the peer's certificate is not trusted (another CA, expired, not
 * for that name) or the peer does not speak TLS. A request is sent only after the handshake: none of it left.
 */
const HANDSHAKE_FAILED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);

export const handshakeFailed = (code: string | undefined): boolean => code !== undefined && HANDSHAKE_FAILED.has(code);
