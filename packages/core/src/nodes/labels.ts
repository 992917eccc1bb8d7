import { z } from 'zod';

export const MAX_LABELS = 16;

// Keys and values are 1-63 characters (SPEC F1) of printable text; control characters would make
// selectors and audit output ambiguous.
const labelText = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters');

export const Labels = z
  .record(labelText, labelText)
  .refine((m) => Object.keys(m).length <= MAX_LABELS, { message: `at most ${MAX_LABELS} labels` });

export type Labels = z.infer<typeof Labels>;

/** Labels in key order, so equal maps are stored and compared identically. */
export function canonicalLabels(labels: Labels): Labels {
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
