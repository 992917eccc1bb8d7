/** Time comes from here, never from `new Date()` in decisions, so tests can move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
