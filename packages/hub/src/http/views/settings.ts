import { z } from 'zod';
import { Mode } from '../../config.ts';

/** The global reconciliation mode; `source` is `file` while no operator has set one (`reconciliation.mode`). */
export const ReconciliationSettings = z.object({ mode: Mode, source: z.enum(['operator', 'file']) });
export type ReconciliationSettings = z.infer<typeof ReconciliationSettings>;
