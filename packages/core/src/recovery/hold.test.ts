import { heldBack, isNodeHeld, nodeHold, overridesHold, type HoldingTarget } from './hold.ts';

const target = (rolloutId: string, claim: HoldingTarget['claim'], state = 'failed'): HoldingTarget => ({ rolloutId, nodeId: 'edge-1', state, claim });

describe('nodeHold', () => {
  test('I12 a claim that may have moved a live target holds its node; the first rollout by id names the hold', () => {
    expect(nodeHold([target('ro-2', 'unknown'), target('ro-1', 'post_mutation', 'converged')], 'edge-1')).toEqual({ rolloutId: 'ro-1', claim: 'post_mutation' });
    expect(isNodeHeld([target('ro-1', 'unknown')], 'edge-2')).toBe(false);
  });

  test('I4 I6 I12 a pre-mutation claim, no claim, or a cancelled target holds nothing', () => {
    expect(nodeHold([target('ro-1', 'pre_mutation'), target('ro-2', null), target('ro-3', 'unknown', 'cancelled')], 'edge-1')).toBeNull();
  });

  test('I12 I13 on a held node only an override or a restore passes; with no hold everything does', () => {
    const hold = { rolloutId: 'ro-1', claim: 'unknown' as const };
    expect(heldBack({ overridesHold: false, operation: 'job_restart' }, hold)).toBe(true);
    expect(heldBack({ overridesHold: false, operation: 'config_apply' }, hold)).toBe(true);
    expect(heldBack({ overridesHold: true, operation: 'job_restart' }, hold)).toBe(false);
    expect(heldBack({ overridesHold: false, operation: 'restore' }, hold)).toBe(false);
    expect(heldBack({ overridesHold: false, operation: 'job_start' }, null)).toBe(false);
  });
});

test('I13 G4 G6 a single-node apply and a rollback go through a hold as an operator\'s explicit action; a rollout\'s batches wait', () => {
  expect(overridesHold('apply')).toBe(true);
  expect(overridesHold('rollback')).toBe(true);
  expect(overridesHold('rollout')).toBe(false);
});
