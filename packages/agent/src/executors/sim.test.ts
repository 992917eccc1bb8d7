import type { AttemptCommand } from './executor.ts';
import { Crash, createSimExecutor, LostResult } from './sim.ts';

const RUNNING = { status: 'running', exit_code: null, restarts: 0 } as const;

// The simulated executor: lifecycle and configuration in memory, and every injectable fault.
let seq = 0;
function command(operation: AttemptCommand['operation'], generation: number, extra: Partial<AttemptCommand> = {}): AttemptCommand {
  seq += 1;
  return {
    attempt_id: `at_${seq}`,
    intent_id: `in_${seq}`,
    operation,
    stream_id: 'ingest',
    generation,
    spec: {},
    action_id: null,
    config_version: null,
    flags: {},
    ...extra,
  };
}
const applyConfig = (version: string, content = version) =>
  command('config_apply', 1, { stream_id: 'config', config_version: version, spec: { content }, flags: { capture_recovery: true } });
const restore = (extra: Partial<AttemptCommand> = {}) => command('restore', 2, { stream_id: 'config', ...extra });

/** A node at cv_2 holding a recovery point of cv_1. */
async function withRecoveryPoint() {
  const sim = createSimExecutor();
  await sim.apply(applyConfig('cv_1', 'one'));
  await sim.apply(applyConfig('cv_2', 'two'));
  return sim;
}

describe('without faults', () => {
  it('starts, stops and restarts streams and reports generation, state and action', async () => {
    const sim = createSimExecutor();
    expect((await sim.apply(command('job_start', 1))).outcome).toBe('succeeded');
    expect(await sim.observe()).toEqual([{ stream_id: 'ingest', generation: 1, state: 'running', last_action_id: null, error: null, health: RUNNING }]);
    expect((await sim.apply(command('job_start', 1))).outcome).toBe('succeeded');
    expect(sim.instance('ingest')).toBe(1); // idempotent start

    await sim.apply(command('job_restart', 2, { action_id: 'act_1' }));
    expect(sim.instance('ingest')).toBe(2);
    await sim.apply(command('job_restart', 2, { action_id: 'act_1' }));
    expect(sim.instance('ingest')).toBe(2); // the same restart is not done twice
    expect(await sim.observe()).toEqual([{ stream_id: 'ingest', generation: 2, state: 'running', last_action_id: 'act_1', error: null, health: RUNNING }]);

    await sim.apply(command('job_stop', 3));
    expect(await sim.observe()).toEqual([{ stream_id: 'ingest', generation: 3, state: 'stopped', last_action_id: 'act_1', error: null }]);
    expect(await sim.apply(command('job_start', 2))).toMatchObject({ outcome: 'failed', failure_class: 'stale_generation' });
  });

  it('a process exiting on its own is reported and fires onChange', async () => {
    const sim = createSimExecutor();
    let changes = 0;
    sim.onChange(() => {
      changes += 1;
    });
    await sim.apply(command('job_start', 1));
    sim.exit('ingest', 1);
    expect(changes).toBe(1);
    expect(await sim.observe()).toEqual([{ stream_id: 'ingest', generation: 1, state: 'failed', last_action_id: null, error: 'exited with code 1', health: { status: 'exited', exit_code: 1, restarts: 0 } }]);
  });

  it('applies configuration capturing recovery points, and restores them', async () => {
    const sim = await withRecoveryPoint();
    expect(await sim.configuration()).toEqual({ applied_version: 'cv_2', recovery_points: [{ ref: expect.stringMatching(/^rp_at_/), config_version: 'cv_1' }] });
    expect(sim.configContent()).toBe('two');
    expect((await sim.apply(restore({ config_version: 'cv_1' }))).outcome).toBe('succeeded');
    expect(sim.configContent()).toBe('one');
    expect((await sim.configuration()).applied_version).toBe('cv_1');
  });

  it('a restore with no recovery point fails pre_mutation', async () => {
    const sim = createSimExecutor();
    expect(await sim.apply(restore())).toMatchObject({ outcome: 'failed', failure_class: 'permanent', code: 'no_recovery_point', mutation: 'pre_mutation' });
  });

  it('waits latencyMs before the effect', async () => {
    const sim = createSimExecutor({ latencyMs: 50 });
    const pending = sim.apply(command('job_start', 1));
    expect(await sim.observe()).toEqual([]);
    await pending;
    expect(await sim.observe()).toMatchObject([{ state: 'running' }]);
  });
});

describe('faults', () => {
  it('temporary: fails injected_temporary with no effect, for the armed number of attempts', async () => {
    const sim = createSimExecutor({ faults: [{ kind: 'temporary', times: 2 }] });
    for (let i = 0; i < 2; i++) {
      expect(await sim.apply(command('job_start', 1))).toEqual({
        outcome: 'failed',
        failure_class: 'temporary',
        code: 'injected_temporary',
        message: 'injected temporary failure',
        mutation: null,
      });
    }
    expect(await sim.observe()).toEqual([]);
    expect(sim.faults).toEqual([]);
    expect((await sim.apply(command('job_start', 1))).outcome).toBe('succeeded');
  });

  it('permanent: fails injected_permanent with no effect', async () => {
    const sim = createSimExecutor({ faults: [{ kind: 'permanent' }] });
    expect(await sim.apply(command('job_start', 1))).toMatchObject({ outcome: 'failed', failure_class: 'permanent', code: 'injected_permanent' });
    expect(await sim.observe()).toEqual([]);
  });

  it('a fault armed for one stream or operation leaves the others alone', async () => {
    const sim = createSimExecutor();
    sim.faults.push({ kind: 'permanent', stream_id: 'bad', times: Infinity }, { kind: 'temporary', operation: 'job_stop' });
    expect((await sim.apply(command('job_start', 1))).outcome).toBe('succeeded');
    expect((await sim.apply(command('job_start', 1, { stream_id: 'bad' }))).code).toBe('injected_permanent');
    expect((await sim.apply(command('job_start', 2, { stream_id: 'bad' }))).code).toBe('injected_permanent');
    expect((await sim.apply(command('job_stop', 2))).code).toBe('injected_temporary');
    expect((await sim.apply(command('job_stop', 2))).outcome).toBe('succeeded');
    expect(sim.faults).toEqual([{ kind: 'permanent', stream_id: 'bad', times: Infinity }]);
  });

  it('lost_result: the effect applies, apply throws LostResult', async () => {
    const sim = createSimExecutor({ faults: [{ kind: 'lost_result' }] });
    await expect(sim.apply(command('job_restart', 2, { action_id: 'act_1' }))).rejects.toBeInstanceOf(LostResult);
    expect(await sim.observe()).toEqual([{ stream_id: 'ingest', generation: 2, state: 'running', last_action_id: 'act_1', error: null, health: RUNNING }]);
    expect(sim.crashed).toBe(false);
  });

  it('crash_before: throws Crash with no effect; the crashed agent answers nothing until revived', async () => {
    const sim = createSimExecutor({ faults: [{ kind: 'crash_before' }] });
    await expect(sim.apply(command('job_start', 1))).rejects.toBeInstanceOf(Crash);
    expect(sim.crashed).toBe(true);
    await expect(sim.observe()).rejects.toBeInstanceOf(Crash);
    await expect(sim.apply(command('job_start', 1))).rejects.toBeInstanceOf(Crash);
    sim.revive();
    expect(await sim.observe()).toEqual([]);
  });

  it('crash_after: the effect applies, then Crash; the workload survives the revive', async () => {
    const sim = createSimExecutor({ faults: [{ kind: 'crash_after' }] });
    await expect(sim.apply(command('job_start', 1))).rejects.toBeInstanceOf(Crash);
    expect(sim.crashed).toBe(true);
    sim.revive();
    expect(await sim.observe()).toEqual([{ stream_id: 'ingest', generation: 1, state: 'running', last_action_id: null, error: null, health: RUNNING }]);
  });

  it('restore_refused: pre_mutation recovery_point_mismatch, nothing changed; it never fires on other operations', async () => {
    const sim = await withRecoveryPoint();
    sim.faults.push({ kind: 'restore_refused' });
    expect((await sim.apply(command('job_start', 1))).outcome).toBe('succeeded'); // not a restore: fault stays armed
    expect(await sim.apply(restore())).toMatchObject({ outcome: 'failed', failure_class: 'permanent', code: 'recovery_point_mismatch', mutation: 'pre_mutation' });
    expect(sim.configContent()).toBe('two');
    expect((await sim.configuration()).applied_version).toBe('cv_2');
    expect((await sim.apply(restore())).outcome).toBe('succeeded'); // fired once
    expect(sim.configContent()).toBe('one');
  });

  it('restore_mid_write: post_mutation, the configuration half written and its version unknown', async () => {
    const sim = await withRecoveryPoint();
    sim.faults.push({ kind: 'restore_mid_write' });
    expect(await sim.apply(restore())).toMatchObject({ outcome: 'failed', code: 'restore_write_failed', mutation: 'post_mutation' });
    expect(sim.configContent()).not.toBe('two');
    expect(sim.configContent()).not.toBe('one');
    const config = await sim.configuration();
    expect(config.applied_version).toBeNull();
    expect(config.recovery_points).toHaveLength(1); // kept: a later restore can still finish the job
    expect((await sim.apply(restore())).outcome).toBe('succeeded');
    expect(sim.configContent()).toBe('one');
  });

  it('an injected temporary failure of a restore says pre_mutation', async () => {
    const sim = await withRecoveryPoint();
    sim.faults.push({ kind: 'temporary' });
    expect(await sim.apply(restore())).toMatchObject({ code: 'injected_temporary', mutation: 'pre_mutation' });
    expect(sim.configContent()).toBe('two');
  });
});

test('L1 the sim executor injects each health: running, exited with its code, restarts within the window', async () => {
  const sim = createSimExecutor();
  let changes = 0;
  sim.onChange(() => {
    changes += 1;
  });
  await sim.apply(command('job_start', 1));
  expect((await sim.observe())[0]?.health).toEqual({ status: 'running', exit_code: null, restarts: 0 });
  sim.exit('ingest', 7);
  expect((await sim.observe())[0]?.health).toEqual({ status: 'exited', exit_code: 7, restarts: 0 });
  await sim.apply(command('job_start', 2));
  expect((await sim.observe())[0]?.health).toEqual({ status: 'running', exit_code: null, restarts: 1 });
  sim.setRestarts('ingest', 4);
  expect((await sim.observe())[0]?.health).toEqual({ status: 'running', exit_code: null, restarts: 4 });
  expect(changes).toBe(2);
  await sim.apply(command('job_stop', 3));
  expect((await sim.observe())[0]?.health).toBeUndefined();
});
