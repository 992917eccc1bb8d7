import { z } from 'zod';

export const MAX_LABELS = 16;

// Keys and values are 1-63 characters (SPEC F1) of printable text; control characters would make
// selectors and audit output ambiguous.
const labelText = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters');

// `__proto__` cannot be an own key of a JavaScript object built by assignment: it would vanish silently
// from the stored map (and a selector would lose that pair and match more nodes), so it is refused.
const labelKey = labelText.refine((k) => k !== '__proto__', { message: '"__proto__" cannot be a label key' });

export const Labels = z
  .record(labelKey, labelText)
  .refine((m) => Object.keys(m).length <= MAX_LABELS, { message: `at most ${MAX_LABELS} labels` });

export type Labels = z.infer<typeof Labels>;

/** Labels in key order, so equal maps are stored and compared identically. */
export function canonicalLabels(labels: Labels): Labels {
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
