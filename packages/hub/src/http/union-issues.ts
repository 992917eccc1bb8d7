import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

/**
 * Issues a client can act on, where a value matched no member of a union. Zod answers that with one issue,
 * "Invalid input" at the union's path, which holds each member's own issues: `{"action": "rollback"}` to a
 * body that is `pause`, a rollback to a version, or a restore by scope says nothing of what is missing.
 * The members the value aims at are those its fields contradict least: a literal or an enum it sent another
 * value for, keys the member does not take. One such member answers its own issues; several answer an
 * alternative each (its first contradiction, else its first issue), literals and enums at one path merged
 * into the values any of them takes. Unions inside a member are explained the same way.
 */
export function explainIssues(issues: readonly Issue[], input: unknown): Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
    return explainUnion(issue.errors, valueAt(input, issue.path)).map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as Issue);
  });
}

function explainUnion(errors: readonly Issue[][], value: unknown): Issue[] {
  const members = flatMembers(errors).map((m) => explainIssues(m, value));
  const contradicting = members.map((m) => m.filter((i) => contradicts(i, value)));
  // Fewest contradictions first; of those, the members that know every key sent (a wrong value is nearer than an unknown key).
  const rank = (c: Issue[]) => c.length * 2 + (c.some((i) => i.code === 'unrecognized_keys') ? 1 : 0);
  const least = Math.min(...contradicting.map(rank));
  const aimed = members.flatMap((m, k) => (rank(contradicting[k]!) === least ? [{ issues: m, first: contradicting[k]![0] ?? m[0]! }] : []));
  if (aimed.length === 1) return aimed[0]!.issues;
  const alternatives = merged(aimed.map((a) => a.first));
  if (alternatives.length === 1) return alternatives;
  const message = `either ${alternatives.map((a) => (a.path.length ? `${a.path.join('.')}: ${a.message}` : a.message)).join('; or ')}`;
  return [{ code: 'custom', path: [], message, input: value } as Issue];
}

/** A member that is itself a union (a union of unions) counts as its members. */
const flatMembers = (errors: readonly Issue[][]): Issue[][] =>
  errors.flatMap((m) => (m.length === 1 && m[0]!.code === 'invalid_union' && m[0]!.path.length === 0 && m[0]!.errors.length > 0 ? flatMembers(m[0]!.errors) : [m]));

/** The value sent something this member refuses: another value for one of its literals or enums, or a key it does not take. */
const contradicts = (i: Issue, value: unknown): boolean =>
  i.code === 'unrecognized_keys' || (i.code === 'invalid_value' && i.path.length > 0 && valueAt(value, i.path) !== undefined);

/** Alternatives at one path said once: the values of literals and enums there joined, the same message kept once. */
function merged(alternatives: readonly Issue[]): Issue[] {
  const out: Issue[] = [];
  for (const a of alternatives) {
    const same = out.findIndex((o) => o.path.join('.') === a.path.join('.') && (o.message === a.message || (o.code === 'invalid_value' && a.code === 'invalid_value')));
    if (same < 0) out.push(a);
    else if (a.code === 'invalid_value' && out[same]!.code === 'invalid_value') out[same] = expectedOneOf(a.path, [...new Set([...out[same]!.values, ...a.values])]);
  }
  return out;
}

/** In Zod's own words for a literal or an enum. */
const expectedOneOf = (path: PropertyKey[], values: z.core.util.Primitive[]): Issue =>
  ({
    code: 'invalid_value',
    path,
    values,
    message: values.length === 1 ? `Invalid input: expected ${JSON.stringify(values[0])}` : `Invalid option: expected one of ${values.map((v) => JSON.stringify(v)).join('|')}`,
  }) as Issue;

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) at = typeof at === 'object' && at !== null ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return at;
}
