import { readFileSync } from 'node:fs';

/** The kernel's counts of connections its listen queues turned away, and of SYNs clients sent again. */
export interface ListenDrops {
  /** A listen queue full: the SYN was dropped, and the client sends it again 1 s, 3 s, 7 s, 15 s … later. */
  overflows: number;
  synRetransmits: number;
}

/**
 * The machine's counters now (Linux: /proc/net/netstat, every socket of the host), or null where they cannot
 * be read. A burst of new connections beyond a listen queue shows as overflows, not as the server's work.
 */
export function listenDrops(): ListenDrops | null {
  let text: string;
  try {
    text = readFileSync('/proc/net/netstat', 'utf8');
  } catch {
    return null;
  }
  const lines = text.split('\n').filter((l) => l.startsWith('TcpExt:'));
  if (lines.length < 2) return null;
  const names = lines[0]!.split(/\s+/);
  const values = lines[1]!.split(/\s+/);
  const value = (name: string) => Number(values[names.indexOf(name)] ?? NaN);
  return { overflows: value('ListenOverflows'), synRetransmits: value('TCPSynRetrans') };
}

/** What the counters grew by from `before` to now; null where they cannot be read. */
export function listenDropsSince(before: ListenDrops | null): ListenDrops | null {
  const now = listenDrops();
  return before && now ? { overflows: now.overflows - before.overflows, synRetransmits: now.synRetransmits - before.synRetransmits } : null;
}
