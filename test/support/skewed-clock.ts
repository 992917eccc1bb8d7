/**
 * Loaded into a Hub or agent process with `--import` (skewedClockEnv): the process's wall clock reads
 * FLEETPLANE_TEST_CLOCK_SKEW_MS ahead of the machine's (behind when negative), as a host whose clock is off
 * would. Timers and `performance.now()` are untouched, as they are on such a host.
 */
const skewMs = Number(process.env.FLEETPLANE_TEST_CLOCK_SKEW_MS ?? 0);
const HostDate = Date;

class SkewedDate extends HostDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(HostDate.now() + skewMs);
    else super(...(args as [string]));
  }
  static override now(): number {
    return HostDate.now() + skewMs;
  }
}

globalThis.Date = SkewedDate as DateConstructor;
