import { hasRole, type OperatorRole } from '@fleetplane/core';
import type { ErrorEnvelope } from '../http/errors.ts';

/**
 * The command that helps after a refusal, by the Hub's error code: an operator at a terminal should be told
 * what to type next, not which URL to POST to.
 */
const NEXT_STEP: Record<string, string> = {
  approval_required:
    'the approval gate is on: submit the change with `fleetplane approvals submit` (same options), and have a second admin run `fleetplane approvals approve ID`',
  self_approval_forbidden: 'another admin approves it: `fleetplane approvals approve ID` with their token',
  node_not_found: '`fleetplane nodes` lists the nodes',
  unknown_nodes: '`fleetplane nodes` lists the nodes',
  no_matching_nodes: '`fleetplane nodes` shows every node with its labels',
  stream_not_found: '`fleetplane streams list` lists the streams',
  rollout_not_found: '`fleetplane rollouts list` lists the rollouts',
  approval_not_found: '`fleetplane approvals list` lists the approval requests',
  config_version_not_found: '`fleetplane config list` lists the versions; `fleetplane config create` adds one',
  generation_conflict: 'someone changed it meanwhile: read it again (`get`) and retry',
  unauthenticated: 'pass a token with --token or FLEETPLANE_TOKEN',
};

const ROLES: readonly OperatorRole[] = ['viewer', 'operator', 'admin'];
const whose = (role: OperatorRole) => `${role === 'viewer' ? 'a' : 'an'} ${role}'s`;

/** Whose token may do what a 403 `forbidden` refused: the roles at or above the one its details name. */
function forbidden(details: Record<string, unknown> | undefined): string {
  const required = ROLES.find((r) => r === details?.required_role);
  if (required === undefined) return "this token's role may not do this: use a token of the role the message names";
  const may = ROLES.filter((r) => hasRole(r, required)).map(whose);
  return `this token's role may not do this: use ${may.length > 1 ? `${may.slice(0, -1).join(', ')} or ${may.at(-1)}` : may[0]} token`;
}

export function nextStep(envelope: Partial<ErrorEnvelope>): string | null {
  if (envelope.code === 'forbidden') return forbidden(envelope.details);
  return (envelope.code && NEXT_STEP[envelope.code]) || null;
}
