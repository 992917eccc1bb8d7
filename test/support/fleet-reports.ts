import type { Segment, SegmentEvent, StreamHeads } from '../../packages/hub/src/archive/segment.ts';

/**
 * A segment of NodeReported version 3 events as a fleet appends them: every node reports every 10 s at its own
 * phase (so consecutive rows are different nodes), reports are appended in transactions of 64, event and
 * correlation ids are UUID v7. Seeded, so a run is repeatable.
 */
export interface FleetOptions {
  nodes: number;
  /** How many times each node reports. */
  rounds: number;
  /** The share of reports that change their node's state (and so carry 5 streams). */
  changed: number;
  seed?: number;
}

const START_MS = Date.parse('2026-11-30T10:00:00.000Z');
const INTERVAL_MS = 10_000;
const BATCH = 64;
const STATES = ['running', 'stopped', 'starting', 'failed'];

export function fleetSegment({ nodes, rounds, changed, seed = 1 }: FleetOptions): Segment {
  const random = mulberry32(seed);
  const uuid = (ms: number) => uuidV7(ms, random);
  const hash = () => Array.from({ length: 32 }, () => Math.floor(random() * 256).toString(16).padStart(2, '0')).join('');
  const fleet = Array.from({ length: nodes }, (_, i) => ({
    node: `edge-${i + 1}`,
    phase: random() * INTERVAL_MS,
    seq: 1000 + Math.floor(random() * 100_000),
    version: 1 + Math.floor(random() * 5000),
    streams: Array.from({ length: 5 }, (_, k): [string, number, string, string | null] => [`edge-${i + 1}-s${k + 1}`, 1, 'running', uuid(START_MS - 86_400_000)]),
  }));
  const reports: Array<{ at: number; node: number }> = [];
  for (let r = 0; r < rounds; r++) {
    for (let n = 0; n < nodes; n++) reports.push({ at: START_MS + fleet[n]!.phase + r * INTERVAL_MS + (random() - 0.5) * 100, node: n });
  }
  reports.sort((a, b) => a.at - b.at);

  const events: SegmentEvent[] = [];
  const heads = new Map<string, StreamHeads>();
  let tx = 7_000_000;
  for (const [i, report] of reports.entries()) {
    if (i % BATCH === 0) tx += 1 + Math.floor(random() * 3);
    const f = fleet[report.node]!;
    const ms = Math.floor(report.at);
    f.seq += 1;
    let data: Record<string, unknown> = { seq: f.seq };
    if (random() < changed) {
      const s = f.streams[Math.floor(random() * 5)]!;
      s[1] += 1;
      s[2] = STATES[Math.floor(random() * STATES.length)]!;
      s[3] = uuid(ms - 1000);
      data = { seq: f.seq, streams: f.streams.map((x) => [...x]), config: 'v3', points: [] };
    }
    const streamId = `node:${f.node}`;
    const head = heads.get(streamId) ?? { streamId, start: { version: f.version, hash: hash() }, end: { version: f.version, hash: '' } };
    f.version += 1;
    head.end = { version: f.version, hash: hash() };
    heads.set(streamId, head);
    events.push({
      position: 500_000 + i,
      txId: String(tx),
      streamId,
      streamVersion: f.version,
      eventId: uuid(ms + Math.floor(random() * 4)),
      type: 'NodeReported',
      schemaVersion: 3,
      data,
      metadata: { actor: `${f.node}-agent`, role: 'agent', source: 'agent', correlation_id: uuid(ms - Math.floor(random() * 3)), causation_id: null },
      recordedAtMicros: ms * 1000,
    });
  }
  return { positions: { first: 500_000, last: 500_000 + Math.max(events.length, 1) - 1 }, events, streams: [...heads.values()] };
}

function uuidV7(ms: number, random: () => number): string {
  const b = Buffer.alloc(16);
  b.writeUIntBE(ms, 0, 6);
  for (let i = 6; i < 16; i++) b[i] = Math.floor(random() * 256);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
