import type { Role } from '../events/envelope.ts';

/** Operator roles in increasing power; agents and the system are outside this ladder. */
export type OperatorRole = 'viewer' | 'operator' | 'admin';

const rank: Record<OperatorRole, number> = { viewer: 0, operator: 1, admin: 2 };

/** Whether a principal of `role` may do what needs `required`. Agents hold no operator role. */
export function hasRole(role: Role, required: OperatorRole): boolean {
  return role in rank && rank[role as OperatorRole] >= rank[required];
}
