import { commaList, labelPairs, type OptionDef, type Parsed } from './args.ts';
import { usageError } from './exit.ts';

/** The flags naming a version and its targets, shared by `rollouts create` and `approvals submit`. */
export const TARGET_OPTIONS: Record<string, OptionDef> = {
  version: { type: 'string', value: 'CV', help: 'the configuration version' },
  nodes: { type: 'string', value: 'a,b', help: 'explicit target nodes, comma-separated' },
  selector: { type: 'string', value: 'k=v,…', help: 'label selector: every pair must match; resolved once, now' },
  'batch-size': { type: 'string', value: 'N', help: 'nodes per batch, 1-256 (default 1)' },
};

/** The request body fields `config_version`, `targets` and `batch_size`. */
export function targetBody(args: Parsed): { config_version: string; targets: { nodes: string[] } | { selector: Record<string, string> }; batch_size?: number } {
  const nodes = args.string('nodes');
  const selector = args.string('selector');
  if ((nodes === undefined) === (selector === undefined)) throw usageError('give either --nodes or --selector');
  const batchSize = args.int('batch-size', 1, 256);
  return {
    config_version: args.required('version'),
    targets: nodes !== undefined ? { nodes: commaList(nodes) } : { selector: labelPairs(commaList(selector!), args.spelled('selector')) },
    ...(batchSize !== undefined ? { batch_size: batchSize } : {}),
  };
}
