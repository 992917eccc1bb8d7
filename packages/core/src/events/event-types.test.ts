import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FLEET_EVENT_TYPES } from './event-types.ts';
import { UPCASTERS } from './upcast.ts';

// Issue 22 item 5: the console offers these names as type filters. The compiler checks that they are exactly
// FleetEventType's members (fleet-event.ts); here, that they are usable as a list and cover recorded logs.

test('issue 22: FLEET_EVENT_TYPES names each type once, and every type of the recorded fixture logs and upcasters', () => {
  expect(new Set(FLEET_EVENT_TYPES).size).toBe(FLEET_EVENT_TYPES.length);
  const fixtures = join(__dirname, '../../../../test/fixtures/events');
  const recorded = readdirSync(fixtures).flatMap((f) =>
    readFileSync(join(fixtures, f), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l).type as string),
  );
  const named = new Set<string>(FLEET_EVENT_TYPES);
  expect([...new Set([...recorded, ...UPCASTERS.map((u) => u.type)])].filter((t) => !named.has(t))).toEqual([]);
  expect(named.has('LabelsReplaced')).toBe(false);
  expect(named.has('NodeLabelsReplaced')).toBe(true);
});
