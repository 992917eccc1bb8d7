import { accessDenied, ok, type Role } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';

/** Appends the audit record of a refused request; it locks nothing and changes no projection. */
export function recordDenial(principal: string, role: Role, method: string, route: string, reason: string): Command<undefined, null> {
  return {
    name: 'RecordDenial',
    decide: () => ok({ events: [accessDenied(principal, role, method, route, reason)], result: null }),
  };
}
