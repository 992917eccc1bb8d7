import type { FleetEvent, Result } from '@fleetplane/core';

/** What a decide function answers: its events, alone or with more, or a refusal. */
type Decided = FleetEvent[] | { events: FleetEvent[] } | Result<FleetEvent[] | { events: FleetEvent[] }>;

const eventsOf = (decided: Decided): FleetEvent[] => {
  if (Array.isArray(decided)) return decided;
  if (!('ok' in decided)) return decided.events;
  if (!decided.ok) throw new Error(`expected events, the decision refused: ${decided.error.code}: ${decided.error.message}`);
  return eventsOf(decided.value);
};

/**
 * A decider specification, without a database: given the state a decision reads (what the projections hold
 * after the events so far), when a command is decided on it, then these events, or this refusal, come out.
 */
export function given<S>(state: S) {
  return {
    when(command: (state: S) => Decided) {
      const decided = command(state);
      return {
        then(expected: readonly FleetEvent[]) {
          expect(eventsOf(decided)).toEqual(expected);
        },
        thenFails(code: string, details?: Record<string, unknown>) {
          expect(decided).toMatchObject({ ok: false, error: { code, ...(details && { details }) } });
        },
      };
    },
  };
}
