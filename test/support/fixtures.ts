import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** An event as an older Hub stored it (test/fixtures/events, one JSON object a line). */
export interface StoredEvent {
  stream_id: string;
  type: string;
  schema_version: number;
  event_id: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_at: string;
}

const FIXTURES = join(__dirname, '../fixtures/events');

/** The events of one fixture log, in the order they were stored. */
export const fixture = (name: string): StoredEvent[] =>
  readFileSync(join(FIXTURES, name), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as StoredEvent);

/** Every fixture log, one after another, by file name. */
export const allFixtures = (): StoredEvent[] => readdirSync(FIXTURES).sort().flatMap(fixture);
