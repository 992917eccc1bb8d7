/**
 * What to do next in the console after a refusal, by the Hub's error code: the button or page that helps, as
 * the CLI names its command (the Hub's own message names the step, for every client alike).
 */
const NEXT_STEP: Record<string, string> = {
  approval_required:
    'In the console: “New approval request” on the Approvals page, where another admin then approves it (a refused new rollout also offers “Submit for approval instead”).',
  self_approval_forbidden: 'Another admin approves or rejects it on the Approvals page.',
  token_expired: 'In the console: “Sign out”, then sign in again.',
};

export function nextStep(code: string): string | null {
  return NEXT_STEP[code] ?? null;
}
