import { nodesProjection } from './nodes.ts';
import type { Projection } from './projection.ts';

/** Every projection the Hub maintains, in the order they are applied. */
export const allProjections: readonly Projection[] = [nodesProjection];
