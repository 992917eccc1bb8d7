import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

/** Issues a refusal names at most; the rest are counted. */
export const MAX_ISSUES = 20;
/** Unknown keys one issue names at most; the rest are counted. */
export const MAX_KEYS_NAMED = 10;

/**
 * The first MAX_ISSUES of `issues`, an unknown-keys issue naming at most MAX_KEYS_NAMED keys, and how many
 * issues were left out: a body of a million unknown keys or invalid items was answered with each of them,
 * twice (message and details), an answer larger than the request.
 */
export function boundedIssues(issues: readonly Issue[]): { issues: Issue[]; omitted: number } {
  const kept = issues.slice(0, MAX_ISSUES).map((issue) => {
    if (issue.code !== 'unrecognized_keys' || issue.keys.length <= MAX_KEYS_NAMED) return issue;
    const named = issue.keys.slice(0, MAX_KEYS_NAMED).map((k) => JSON.stringify(k));
    return { ...issue, keys: issue.keys.slice(0, MAX_KEYS_NAMED), message: `Unrecognized keys: ${named.join(', ')} and ${issue.keys.length - MAX_KEYS_NAMED} more` };
  });
  return { issues: kept, omitted: issues.length - kept.length };
}
