import { randomUUID } from 'node:crypto';

/** Ids of intents (`in_…`), attempts (`at_…`) and actions (`ac_…`), made before a decision runs. */
export const newId = (prefix: string): string => `${prefix}_${randomUUID()}`;
