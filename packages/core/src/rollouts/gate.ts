import { fail, ok, type Result } from '../result.ts';
import type { RolloutKind } from './events.ts';

export const APPROVAL_ROUTE = 'POST /api/v1/config-approvals';

/**
 * The two-person gate (SPEC H2, H9): with `approval_required` on, no creation path makes a rollout
 * directly. A rollback is exempt only when its version was applied before on every node it affects: going
 * back to known-good content is not new content. Anything else goes through an approval request.
 */
export function checkApprovalGate(
  approvalRequired: boolean,
  kind: RolloutKind,
  nodes: readonly string[],
  appliedBefore: ReadonlySet<string>,
): Result<void> {
  if (!approvalRequired) return ok(undefined);
  if (kind === 'rollback' && nodes.length > 0 && nodes.every((n) => appliedBefore.has(n))) return ok(undefined);
  const why = kind === 'rollback' ? 'this version was not applied before on every affected node, so it needs approval like new content' : 'configuration changes need a second person\'s approval';
  // The message is read in a terminal, a browser and a script alike: it names the step, not one client's way
  // to take it; the route is in the details for programs.
  return fail('approval_required', `${why}: submit it as an approval request, which an admin other than you approves`, {
    approval_route: APPROVAL_ROUTE,
    kind,
  });
}
