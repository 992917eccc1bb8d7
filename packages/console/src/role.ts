import type { Role } from './session.ts';

// The console hides what a role may not do; the Hub still enforces every one of these on its own.

/** Labels, drain, rollouts, approval requests: operator and admin. */
export const mayOperate = (role: Role): boolean => role === 'operator' || role === 'admin';

/** Approving and rejecting requests (`ApproveRollouts`): admin alone. */
export const mayApprove = (role: Role): boolean => role === 'admin';
