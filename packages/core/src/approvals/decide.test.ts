import { given } from '../../../../test/support/decider.ts';
import { decideApproval, decideExpiry, decideSubmitApproval, type ApprovalState, type NewApproval } from './approval.ts';

const now = new Date('2026-12-01T10:00:00.000Z');
const DAY = 86_400_000;
const input: NewApproval = { approvalId: 'ap-1', kind: 'rollout', configVersion: 'cv-2', selector: null, nodes: ['edge-1'], batchSize: 1, republishedFrom: null };
const pending: ApprovalState = { approvalId: 'ap-0', kind: 'rollout', configVersion: 'cv-2', selector: null, nodes: ['edge-1'], batchSize: 1, health: null, status: 'pending', submittedBy: 'alice', expiresAt: new Date(now.getTime() + DAY), rolloutId: null };

test('H3 a request is pinned with its expiry; an empty resolution submits nothing', () => {
  given(input)
    .when((i) => decideSubmitApproval(i, now, DAY))
    .then([
      {
        streamId: 'approval:ap-1',
        type: 'ApprovalSubmitted',
        data: { approval_id: 'ap-1', kind: 'rollout', config_version: 'cv-2', nodes: ['edge-1'], selector: null, batch_size: 1, expires_at: '2026-12-02T10:00:00.000Z', republished_from: null },
      },
    ]);
  given({ ...input, nodes: [] }).when((i) => decideSubmitApproval(i, now, DAY)).thenFails('no_matching_nodes');
});

test('H7 only a rejected or expired request is republished; one past its time expires on the way', () => {
  given({ ...input, republishedFrom: pending }).when((i) => decideSubmitApproval(i, now, DAY)).thenFails('approval_not_republishable');
  const lapsed = { ...pending, expiresAt: now };
  given({ ...input, republishedFrom: lapsed })
    .when((i) => decideSubmitApproval(i, now, DAY))
    .then([
      { streamId: 'approval:ap-0', type: 'ApprovalExpired', data: { approval_id: 'ap-0' } },
      {
        streamId: 'approval:ap-1',
        type: 'ApprovalSubmitted',
        data: { approval_id: 'ap-1', kind: 'rollout', config_version: 'cv-2', nodes: ['edge-1'], selector: null, batch_size: 1, expires_at: '2026-12-02T10:00:00.000Z', republished_from: 'ap-0' },
      },
    ]);
});

test('H5 another admin approves with the rollout id made for it, or rejects; the submitter never decides its own request', () => {
  given(pending).when((a) => decideApproval(a, { decision: 'approve', rolloutId: 'ro-1' }, 'bob', null, now)).then([{ streamId: 'approval:ap-0', type: 'ApprovalApproved', data: { approval_id: 'ap-0', rollout_id: 'ro-1' } }]);
  given(pending).when((a) => decideApproval(a, { decision: 'reject', reason: 'no' }, 'bob', null, now)).then([{ streamId: 'approval:ap-0', type: 'ApprovalRejected', data: { approval_id: 'ap-0', reason: 'no' } }]);
  given(pending).when((a) => decideApproval(a, { decision: 'approve', rolloutId: 'ro-1' }, 'alice', null, now)).thenFails('self_approval_forbidden');
  given({ ...pending, status: 'rejected' as const }).when((a) => decideApproval(a, { decision: 'approve', rolloutId: 'ro-1' }, 'bob', null, now)).thenFails('approval_not_pending');
});

test('H8 repeating an approval changes nothing; a request decided after its time is recorded as expired', () => {
  given({ ...pending, status: 'approved' as const }).when((a) => decideApproval(a, { decision: 'approve', rolloutId: 'ro-2' }, 'bob', 'ro-1', now)).then([]);
  given({ ...pending, expiresAt: now }).when((a) => decideApproval(a, { decision: 'approve', rolloutId: 'ro-1' }, 'bob', null, now)).then([{ streamId: 'approval:ap-0', type: 'ApprovalExpired', data: { approval_id: 'ap-0' } }]);
});

test('H7 the expiry job expires a pending request at its time, and nothing before or after a decision', () => {
  given({ ...pending, expiresAt: now }).when((a) => decideExpiry(a, now)).then([{ streamId: 'approval:ap-0', type: 'ApprovalExpired', data: { approval_id: 'ap-0' } }]);
  given(pending).when((a) => decideExpiry(a, now)).then([]);
  given({ ...pending, status: 'approved' as const, expiresAt: now }).when((a) => decideExpiry(a, now)).then([]);
});
