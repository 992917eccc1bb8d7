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
  forbidden: "this token's role may not do this: use an operator's or an admin's token",
};

export function nextStep(code: string | undefined): string | null {
  return (code && NEXT_STEP[code]) || null;
}
