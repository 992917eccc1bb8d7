import { classifyRestoreFailure } from './classify.ts';

test('I3 I8 a failed restore is classified: not run (busy, unreachable) before the verdict, then the verdict, then the code', () => {
  const cases: Array<[string | null, string | null, string]> = [
    ['busy', 'pre_mutation', 'not_run'],
    ['node_unreachable', null, 'not_run'],
    ['no_recovery_point', 'post_mutation', 'post_mutation'],
    ['disk_on_fire', 'pre_mutation', 'pre_mutation'],
    ['restore_not_sent', null, 'pre_mutation'],
    ['no_recovery_point', null, 'pre_mutation'],
    ['recovery_point_mismatch', null, 'pre_mutation'],
    ['target_not_found', null, 'pre_mutation'],
    ['lease_expired', null, 'post_mutation'],
    ['unconfirmed', null, 'post_mutation'],
    ['restore_write_failed', null, 'post_mutation'],
    ['revert_failed', null, 'post_mutation'],
    ['target_not_found', 'post_mutation', 'post_mutation'],
    ['disk_on_fire', null, 'unknown'],
    [null, null, 'unknown'],
  ];
  expect(cases.map(([code, mutation]) => classifyRestoreFailure({ code, mutation }))).toEqual(cases.map((c) => c[2]));
});
