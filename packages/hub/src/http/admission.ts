import type { ConfigFile } from '../config.ts';
import { CONNECT_TIMEOUT_MS } from '../database/connect.ts';
import { HttpError } from './errors.ts';
import { ABORTED } from './request-error.ts';
import type { RouteDef } from './route.ts';

/**
 * Admission control: how many requests of each class of client a Hub works on at once, and how many wait
 * their turn. Agents' protocol routes and operators' routes are classes of their own, so a storm of one (a
 * fleet reconnecting, a script reading rollouts in a loop) waits or is turned away in its own class and never
 * takes the other's places. Routes that hold their request open waiting for something to send (a long poll,
 * an event stream) are not work in flight and are not counted; public routes (probes, /metrics) neither.
 */
export type AdmissionClass = 'agent' | 'operator';
export const ADMISSION_CLASSES: readonly AdmissionClass[] = ['agent', 'operator'];

export interface ClassBounds {
  /** Requests of the class worked on at once. */
  maxInFlight: number;
  /** Requests of the class waiting for a place, first come first served; the next one is refused. */
  maxQueued: number;
}

/** The code of a request refused because its class is full: retried after Retry-After, it may be served. */
export const OVERLOADED = 'overloaded';
/** Seconds a refused client waits before it asks again; clients add jitter of their own. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 1;

export interface Admission {
  /**
   * Waits for a place for a request of `def`, and answers the function that gives it back (once the answer is
   * sent). Throws 429 `overloaded` when the route's class has as many waiting as it may, and the request's
   * own abort (its caller gone) while it waits.
   */
  enter(def: RouteDef, signal: AbortSignal): Promise<() => void>;
  inFlight(cls: AdmissionClass): number;
  queued(cls: AdmissionClass): number;
}

/** The class a route's requests are admitted in, or null when they are not counted. */
export function admissionClass(def: RouteDef): AdmissionClass | null {
  if (def.access === 'public' || def.held) return null;
  return def.access === 'agent' ? 'agent' : 'operator';
}

/** The bounds `control_api` sets (config.ts). */
export function admissionFor(
  api: Pick<ConfigFile['control_api'], 'agent_max_in_flight' | 'agent_max_queued' | 'operator_max_in_flight' | 'operator_max_queued'>,
  onRefused: (cls: AdmissionClass, reason: RefusedFor) => void,
): Admission {
  return createAdmission(
    {
      agent: { maxInFlight: api.agent_max_in_flight, maxQueued: api.agent_max_queued },
      operator: { maxInFlight: api.operator_max_in_flight, maxQueued: api.operator_max_queued },
    },
    onRefused,
  );
}

const nothing = () => {};
/** A caller gone while its request waited: answered as a body the client stopped sending (no one reads it). */
const gone = () => new HttpError(400, ABORTED, 'the client went away while its request waited for a place');

/**
 * The longest a request waits for a place: as long as one waits for a new database connection (database/
 * connect.ts). Places held by requests waiting on a database that stopped answering are given back only as
 * those fail, each after that long; a queue behind them would hold its requests for several times it.
 */
export const QUEUE_WAIT_MS = CONNECT_TIMEOUT_MS;

/** Why a request was refused: its class's queue was full, or it waited QUEUE_WAIT_MS in it. */
export const REFUSED_FOR = ['queue_full', 'queue_wait'] as const;
export type RefusedFor = (typeof REFUSED_FOR)[number];

/** One Hub's admission, per class within `bounds`; `onRefused` is told of each request turned away. */
export function createAdmission(
  bounds: Record<AdmissionClass, ClassBounds>,
  onRefused: (cls: AdmissionClass, reason: RefusedFor) => void,
): Admission {
  const lanes = { agent: lane(bounds.agent), operator: lane(bounds.operator) };
  return {
    async enter(def, signal) {
      const cls = admissionClass(def);
      if (cls === null) return nothing;
      const lane = lanes[cls];
      const refused = (reason: RefusedFor) => {
        onRefused(cls, reason);
        const why = reason === 'queue_full' ? `as many ${cls} requests as it takes at once waiting` : `had no place for this ${cls} request within ${QUEUE_WAIT_MS} ms`;
        return new HttpError(429, OVERLOADED, `the Hub has ${why}; retry after ${OVERLOADED_RETRY_AFTER_SECONDS} s`, {
          class: cls,
          reason,
          in_flight: lane.running,
          queued: lane.waiting.length,
        });
      };
      const admitted = lane.enter(signal);
      if (admitted === null) throw refused('queue_full');
      return admitted.catch((e: unknown) => {
        throw e === WAITED ? refused('queue_wait') : e;
      });
    },
    inFlight: (cls) => lanes[cls].running,
    queued: (cls) => lanes[cls].waiting.length,
  };
}

/** A request's wait for a place that ran out. */
const WAITED = Symbol('waited');

function lane(bounds: ClassBounds) {
  const waiting: Array<{ go(): void }> = [];
  const self = {
    running: 0,
    waiting,
    /** A release once admitted (at once or after waiting), or null when the queue is full. */
    enter(signal: AbortSignal): Promise<() => void> | null {
      if (self.running < bounds.maxInFlight) {
        self.running++;
        return Promise.resolve(releaser());
      }
      if (waiting.length >= bounds.maxQueued) return null;
      if (signal.aborted) return Promise.reject(gone());
      return new Promise((resolve, reject) => {
        const leave = (why: unknown) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', left);
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          reject(why);
        };
        const waiter = {
          go: () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', left);
            resolve(releaser());
          },
        };
        const left = () => leave(gone());
        const timer = setTimeout(() => leave(WAITED), QUEUE_WAIT_MS);
        signal.addEventListener('abort', left, { once: true });
        waiting.push(waiter);
      });
    },
  };
  /** Gives the place back once: to the first waiting request, whose place it becomes, else to the lane. */
  const releaser = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiting.shift();
      if (next) next.go();
      else self.running--;
    };
  };
  return self;
}
