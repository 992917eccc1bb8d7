import type { Page } from 'playwright-core';
import { describeInBrowser, capture, signIn } from '../support/browser.ts';
import { consoleSuite } from '../support/console-suite.ts';
import { TestAgent } from '../support/fleet.ts';
import { testConfig, TOKENS } from '../support/hub.ts';

// The approval gate in the web console, in headless Chromium against a real Hub with approval_required:
// an operator submits, an admin approves; an admin's own request cannot be decided by them; a rejected
// request is republished from a form pre-filled with it. Screenshots go to test-artifacts/console/.

jest.setTimeout(120_000);

describeInBrowser('console: approvals', () => {
  let version: string;
  const suite = consoleSuite({ config: testConfig(2, { mode: 'configuration' }, { approval_required: true }) }, async (hub) => {
    for (const id of ['edge-1', 'edge-2']) {
      const agent = new TestAgent(hub, id);
      await agent.register();
      await agent.report();
      await hub.call('PUT', `/api/v1/nodes/${id}/labels`, { token: TOKENS.operator, body: { labels: { env: 'prod' } } });
    }
    version = (await hub.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content: 'workers: 8\n', format: 'yaml' } })).body.config_version;
  });

  const card = (page: Page, approvalId: string) => page.locator(`article[data-approval="${approvalId}"]`);

  /** Submits a request from the Approvals page as whoever is signed in on `page`; answers its id. */
  async function submit(page: Page, targets: { nodes: string[] } | { selector: [string, string] }, batchSize: string): Promise<string> {
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('button', { name: 'New approval request' }).click();
    await page.getByLabel('Configuration version').selectOption(version);
    if ('nodes' in targets) {
      await page.getByLabel('Explicit nodes').check();
      for (const n of targets.nodes) await page.getByLabel(n, { exact: true }).check();
    } else {
      await page.getByLabel('Selector key 1').fill(targets.selector[0]);
      await page.getByLabel('Selector value 1').fill(targets.selector[1]);
      await page.getByTestId('approval-form-preview').getByText('Resolves now to 2 nodes').waitFor();
    }
    await page.getByLabel('Batch size').fill(batchSize);
    await page.getByRole('button', { name: 'Submit for approval' }).click();
    const notice = await page.getByText(/^Submitted \S+ for approval\.$/).textContent();
    return notice!.replace(/^Submitted (\S+) for approval\.$/, '$1');
  }

  test('issue 22: the rollout form says before submitting that the change needs approval, and submits the request; a refusal names the console\'s button', async () => {
    const { hub, browser } = suite;
    const bob = await browser.tab();
    await signIn(bob, hub.url, TOKENS.operator, 'bob');
    await bob.getByRole('link', { name: 'Rollouts' }).click();
    await bob.getByRole('button', { name: 'New rollout' }).click();
    const form = bob.getByRole('form', { name: 'New rollout' });
    await form.getByRole('note').getByText(/^This Hub requires a second person's approval for configuration changes: submitting sends an approval request/).waitFor();
    expect(await form.getByRole('button', { name: 'Create rollout' }).count()).toBe(0);
    await form.getByLabel('Configuration version').selectOption(version);
    await form.getByLabel('Explicit nodes').check();
    await form.getByLabel('edge-1', { exact: true }).check();
    await capture(bob, 'rollouts-gated-form');
    await form.getByRole('button', { name: 'Submit for approval' }).click();
    await bob.getByRole('heading', { name: 'Approvals' }).waitFor();
    const [request] = (await hub.call('GET', '/api/v1/config-approvals?status=pending', { token: TOKENS.viewer })).body.items;
    expect(request).toMatchObject({ kind: 'rollout', config_version: version, nodes: ['edge-1'], submitted_by: 'bob' });
    await card(bob, request.approval_id).getByText('Waiting for an admin to approve or reject it.').waitFor();

    // Approved, the rollout runs; rolling it back to content never applied there needs approval too, and the
    // red banner says where in the console to ask for it, not which route to call.
    const approved = await hub.call('POST', `/api/v1/config-approvals/${request.approval_id}/approve`, { token: TOKENS.admin, body: {} });
    expect(approved.status).toBe(200);
    const other = (await hub.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content: 'workers: 2\n', format: 'yaml' } })).body.config_version;
    await bob.getByRole('link', { name: 'Rollouts' }).click();
    const rollout = bob.locator(`article[data-rollout="${approved.body.rollout_id}"]`);
    await rollout.getByLabel('Roll back to').selectOption(other);
    await rollout.getByRole('button', { name: 'Roll back' }).click();
    const banner = bob.getByRole('alert').filter({ hasText: 'approval_required' });
    await banner.getByText(/“New approval request” on the Approvals page/).waitFor();
    expect(await banner.textContent()).not.toMatch(/POST|\/api\//);
    // Chromium logs the refused request as an error: this one is expected, and the only one.
    expect(browser.errors.splice(0)).toEqual([expect.stringMatching(/\/rollouts: Failed to load resource: .* 403 \(Forbidden\)$/)]);
    await capture(bob, 'rollouts-gated-refusal');
    // Frees edge-1 for the tests below.
    expect((await hub.call('POST', `/api/v1/rollouts/${approved.body.rollout_id}/actions`, { token: TOKENS.operator, body: { action: 'cancel' } })).status).toBe(200);
    await bob.close();
  });

  test('an operator submits; an admin sees it pending and approves it, which creates the rollout', async () => {
    const { hub, browser } = suite;
    const bob = await browser.tab();
    await signIn(bob, hub.url, TOKENS.operator, 'bob');
    const id = await submit(bob, { nodes: ['edge-1', 'edge-2'] }, '1');
    await card(bob, id).getByText('Waiting for an admin to approve or reject it.').waitFor();
    expect(await card(bob, id).getByRole('button', { name: 'Approve' }).count()).toBe(0);

    const alice = await browser.tab();
    await signIn(alice, hub.url, TOKENS.admin, 'alice');
    await alice.getByRole('link', { name: 'Approvals' }).click();
    await alice.getByRole('heading', { name: 'Pending (1)' }).waitFor();
    await capture(alice, 'approvals-pending');
    await card(alice, id).getByRole('button', { name: 'Approve' }).click();
    await alice.getByText(new RegExp(`^Approved ${id}: rollout ro_\\S+ created\\.$`)).waitFor();
    const approval = (await hub.call('GET', `/api/v1/config-approvals/${id}`)).body;
    expect(approval).toMatchObject({ status: 'approved', decided_by: 'alice', nodes: ['edge-1', 'edge-2'] });
    expect((await hub.call('GET', `/api/v1/rollouts/${approval.rollout_id}`)).body).toMatchObject({ created_by: 'alice', approval_id: id });
    // The operator's page follows without a reload.
    await card(bob, id).getByText('approved', { exact: true }).waitFor();
    await bob.close();
    await alice.close();
  });

  test('an admin cannot decide their own request: the buttons are disabled and say why', async () => {
    const { hub, browser } = suite;
    const alice = await browser.tab();
    await signIn(alice, hub.url, TOKENS.admin, 'alice');
    const id = await submit(alice, { nodes: ['edge-1'] }, '1');
    const own = card(alice, id);
    await own.getByText('You submitted this request: another admin must approve or reject it.').waitFor();
    expect(await own.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
    expect(await own.getByRole('button', { name: 'Reject' }).isDisabled()).toBe(true);
    await capture(alice, 'approvals-own-request');
    await alice.close();
  });

  test('an admin rejects a request; the operator republishes it from a pre-filled form', async () => {
    const { hub, browser } = suite;
    const bob = await browser.tab();
    await signIn(bob, hub.url, TOKENS.operator, 'bob');
    const rejected = await submit(bob, { selector: ['env', 'prod'] }, '2');

    const carol = await browser.tab();
    await signIn(carol, hub.url, TOKENS.admin2, 'carol');
    await carol.getByRole('link', { name: 'Approvals' }).click();
    await card(carol, rejected).getByLabel('Reason for rejecting').fill('not during the freeze');
    await card(carol, rejected).getByRole('button', { name: 'Reject' }).click();
    await carol.getByText(`Rejected ${rejected}.`).waitFor();
    await carol.close();

    await card(bob, rejected).getByText('not during the freeze').waitFor();
    await card(bob, rejected).getByRole('button', { name: `Republish ${rejected}` }).click();
    await bob.getByRole('heading', { name: `Republish ${rejected}` }).waitFor();
    expect(await bob.getByLabel('Configuration version').inputValue()).toBe(version);
    expect(await bob.getByLabel('By label selector').isChecked()).toBe(true);
    expect(await bob.getByLabel('Selector key 1').inputValue()).toBe('env');
    expect(await bob.getByLabel('Selector value 1').inputValue()).toBe('prod');
    expect(await bob.getByLabel('Batch size').inputValue()).toBe('2');
    await bob.getByTestId('approval-form-preview').getByText('Resolves now to 2 nodes: edge-1, edge-2').waitFor();
    await capture(bob, 'approvals-republish');
    await bob.getByRole('button', { name: 'Submit for approval' }).click();
    const notice = await bob.getByText(new RegExp(`^Submitted (?!${rejected})\\S+ for approval\\.$`)).textContent();
    const republished = notice!.replace(/^Submitted (\S+) for approval\.$/, '$1');
    expect((await hub.call('GET', `/api/v1/config-approvals/${republished}`)).body).toMatchObject({
      status: 'pending',
      republished_from: rejected,
      selector: { env: 'prod' },
      batch_size: 2,
      submitted_by: 'bob',
    });
    await card(bob, republished).getByText(rejected).waitFor();
    await capture(bob, 'approvals');
    await bob.close();
  });

  test('H7 L3 a republished request keeps the kind and the health gate of the one it replaces, which the card shows', async () => {
    const { hub, browser } = suite;
    const health = { soak_ms: 30_000, max_unhealthy_targets: 1, on_unhealthy: 'rollback' };
    const body = { kind: 'apply', config_version: version, targets: { nodes: ['edge-2'] }, health };
    const submitted = await hub.call('POST', '/api/v1/config-approvals', { token: TOKENS.operator, body });
    expect(submitted.status).toBe(201);
    const id = submitted.body.approval_id;
    expect((await hub.call('POST', `/api/v1/config-approvals/${id}/reject`, { token: TOKENS.admin2, body: { reason: 'later' } })).status).toBe(200);

    const bob = await browser.tab();
    await signIn(bob, hub.url, TOKENS.operator, 'bob');
    await bob.getByRole('link', { name: 'Approvals' }).click();
    await card(bob, id).getByText('soak 30 s, at most 1 unhealthy target, then rollback', { exact: true }).waitFor();
    await card(bob, id).getByRole('button', { name: `Republish ${id}` }).click();
    await bob.getByTestId('approval-form-carried').getByText('Republished as a request of kind apply, with its health gate: soak 30 s, at most 1 unhealthy target, then rollback.').waitFor();
    await bob.getByRole('button', { name: 'Submit for approval' }).click();
    const notice = await bob.getByText(new RegExp(`^Submitted (?!${id})\\S+ for approval\\.$`)).textContent();
    const republished = notice!.replace(/^Submitted (\S+) for approval\.$/, '$1');
    expect((await hub.call('GET', `/api/v1/config-approvals/${republished}`)).body).toMatchObject({ status: 'pending', republished_from: id, kind: 'apply', nodes: ['edge-2'], health });
    await bob.close();
  });
  test('H3 a pending request older than the newest page of requests still shows to the admins who decide it', async () => {
    const { hub, browser } = suite;
    const submit = (content: string) => hub.call('POST', '/api/v1/config-approvals', { token: TOKENS.operator, body: { config_version: content, targets: { nodes: ['edge-1'] } } });
    const waiting = (await submit(version)).body.approval_id;
    // Fifty newer requests, each rejected at once: the newest page (50) holds none but them.
    for (let i = 0; i < 50; i++) {
      const newer = (await submit(version)).body.approval_id;
      expect((await hub.call('POST', `/api/v1/config-approvals/${newer}/reject`, { token: TOKENS.admin, body: { reason: null } })).status).toBe(200);
    }
    const carol = await browser.tab();
    await signIn(carol, hub.url, TOKENS.admin2, 'carol');
    await carol.getByRole('link', { name: 'Approvals' }).click();
    await card(carol, waiting).getByRole('button', { name: 'Approve' }).waitFor();
    await carol.close();
  });
});
