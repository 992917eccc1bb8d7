import { z } from 'zod';
import { LABEL_KEY_PATTERN, LABEL_VALUE_PATTERN, labelKeyProblem, labelValueProblem, MAX_LABEL_TEXT, MAX_LABELS } from './label-syntax.ts';

// Labels as the log holds them: keys and values 1-63 characters of printable text, the rule of older Hubs,
// so their events keep replaying. What an operator sets now is checked by NewLabels.
const labelText = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters');

export const Labels = z
  .record(labelText, labelText)
  .refine((m) => Object.keys(m).length <= MAX_LABELS, { message: `at most ${MAX_LABELS} labels` });

export type Labels = z.infer<typeof Labels>;

/**
 * Labels as an operator sets them (label-syntax.ts). `Labels` above is what the log holds: maps stored by
 * older Hubs under its looser rules still replay, and a node keeps them until they are replaced.
 */
export const NewLabels = z
  // The rules are checked below, where each refusal can name the text it refuses; the metadata documents them.
  .record(
    z.string().meta({ minLength: 1, maxLength: MAX_LABEL_TEXT, pattern: LABEL_KEY_PATTERN }),
    z.string().meta({ minLength: 1, maxLength: MAX_LABEL_TEXT, pattern: LABEL_VALUE_PATTERN }),
  )
  .superRefine((map, ctx) => {
    const entries = Object.entries(map);
    if (entries.length > MAX_LABELS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_LABELS} labels` });
    for (const [key, value] of entries) {
      const keyProblem = labelKeyProblem(key);
      if (keyProblem) ctx.addIssue({ code: 'custom', path: [key], message: `label key ${JSON.stringify(key)} ${keyProblem}` });
      const valueProblem = labelValueProblem(value);
      if (valueProblem) ctx.addIssue({ code: 'custom', path: [key], message: `label value ${JSON.stringify(value)} ${valueProblem}` });
    }
  });

/** Labels in key order, so equal maps are stored and compared identically. */
export function canonicalLabels(labels: Labels): Labels {
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
