import { given } from '../../../../test/support/decider.ts';
import type { DispatchNode } from '../reconcile/dispatch.ts';
import { queueOpened } from './intents.ts';
import { configDigest, decideConfigVersion } from './version.ts';

test('a configuration version is recorded with its content byte for byte and its digest; a missing parent is refused', () => {
  const input = { content: 'a: 1\n', format: 'yaml' as const, parent: 'cv-1' };
  given({ parentExists: true })
    .when((s) => decideConfigVersion(input, s.parentExists, 'cv-2'))
    .then([{ streamId: 'config:cv-2', type: 'ConfigVersionCreated', data: { config_version: 'cv-2', digest: configDigest('a: 1\n'), format: 'yaml', content: 'a: 1\n', parent: 'cv-1' } }]);
  given({ parentExists: false }).when((s) => decideConfigVersion(input, s.parentExists, 'cv-2')).thenFails('config_version_not_found', { config_version: 'cv-1' });
});

describe('queueOpened: a batch start on a node reporting a configuration version the log does not know (C5, a Hub restored from a backup)', () => {
  const now = new Date('2026-12-07T12:00:00.000Z');
  const before = new Date('2026-12-07T11:00:00.000Z');
  const node: DispatchNode = { nodeId: 'edge-2', registered: true, maintenance: 'active', mode: 'configuration', hold: null, configAhead: { generation: 4, at: now }, unheardSince: null };
  const opened = [{ nodeId: 'edge-2', intentId: 'in-2', generation: 5, newAttemptId: 'at-2', overridesHold: false }];
  const batch = (createdAt: Date, n: DispatchNode) => queueOpened(opened, 'cv-1', 'ro-1', createdAt, { content: 'x' }, new Map([['edge-2', n]]), now);

  test('a later batch of a rollout created before the node reported it is blocked node_ahead_of_log, nothing sent', () => {
    given(node)
      .when((n) => batch(before, n))
      .then([
        {
          streamId: 'intent:in-2',
          type: 'IntentBlocked',
          data: {
            intent_id: 'in-2',
            failure_class: 'permanent',
            code: 'node_ahead_of_log',
            message:
              "node edge-2 reports a configuration version this Hub's log does not know (applied after the backup its database was restored from?): " +
              'this config_apply of cv-1, decided before that report, is not sent; resume the rollout, or roll out a version, to apply over it',
          },
        },
      ]);
  });

  test('a batch of a rollout created since, or on a node without the mark, is queued', () => {
    const queued = [expect.objectContaining({ type: 'AttemptQueued', data: expect.objectContaining({ attempt_id: 'at-2', intent_id: 'in-2', operation: 'config_apply' }) })];
    given(node).when((n) => batch(now, n)).then(queued);
    given({ ...node, configAhead: null }).when((n) => batch(before, n)).then(queued);
  });

  test("a batch starting on a node not heard from since the Hub's database was restored (not yet marked) sends nothing: its intent waits pending for the node's report", () => {
    given({ ...node, configAhead: null, unheardSince: before }).when((n) => batch(before, n)).then([]);
  });
});
