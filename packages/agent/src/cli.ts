#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { caFault, isHubAddress, isPushableAddress, tlsPairFault } from '@fleetplane/core';
import { Agent, REPORT_EVERY_MS } from './agent.ts';
import type { Executor } from './executors/executor.ts';
import { createProcessExecutor } from './executors/process.ts';
import { createSimExecutor } from './executors/sim.ts';
import { jsonLog } from './log.ts';

const USAGE = `usage: fleetplane-agent --hub URL --node-id ID --token T --state-dir DIR [options]
  --executor process|sim     what runs the streams (default process)
  --capabilities a,b         advertised capabilities, e.g. network_shuffle
  --data-address HOST:PORT   data-plane address (split placements need one)
  --report-every-ms N        full report period (default 10000)
  --poll-seconds N           long poll length (default 25)
  --sim-latency-ms N         with --executor sim: how long each attempt takes
  --control-port N           serve the control endpoint (POST /v1/attempts, /v1/apply, /v1/restore) on
                             this port (0: any free one) and register it, so the Hub pushes attempts
  --control-host HOST        address the control endpoint listens on (default 127.0.0.1)
  --control-advertise H:P    control address to register, when the Hub reaches it by another address
  --control-cert FILE        serve the control endpoint over HTTPS with this certificate (PEM) ...
  --control-key FILE         ... and its private key; registered as https://HOST:PORT
  --hub-credential-sha256 X  SHA-256 hex of this node's hub-to-node credential (fleetplane node-credential NODE)
  --hub-ca FILE              verify an https:// Hub against this CA (PEM) instead of the system's CAs
The token may also come from FLEETPLANE_AGENT_TOKEN, the hub credential digest from
FLEETPLANE_HUB_CREDENTIAL_SHA256, the Hub's CA from FLEETPLANE_HUB_CA.`;

const options = {
  hub: { type: 'string' },
  'node-id': { type: 'string' },
  token: { type: 'string' },
  'state-dir': { type: 'string' },
  executor: { type: 'string', default: 'process' },
  capabilities: { type: 'string', default: '' },
  'data-address': { type: 'string' },
  'report-every-ms': { type: 'string', default: String(REPORT_EVERY_MS) },
  'poll-seconds': { type: 'string', default: '25' },
  'sim-latency-ms': { type: 'string', default: '0' },
  'control-port': { type: 'string' },
  'control-host': { type: 'string', default: '127.0.0.1' },
  'control-advertise': { type: 'string' },
  'control-cert': { type: 'string' },
  'control-key': { type: 'string' },
  'hub-credential-sha256': { type: 'string' },
  'hub-ca': { type: 'string' },
  help: { type: 'boolean' },
} as const;

// Node's parser throws on an unknown option, a missing value or a stray argument: that is a usage error too,
// one line and exit 2, not a stack trace and exit 1.
const { values } = (() => {
  try {
    return parseArgs({ options });
  } catch (e) {
    return refuse(`${(e as Error).message.split('. ')[0]} (fleetplane-agent --help lists the options)`);
  }
})();

const token = values.token ?? process.env.FLEETPLANE_AGENT_TOKEN;
if (values.help || !values.hub || !values['node-id'] || !token || !values['state-dir']) {
  process.stderr.write(USAGE + '\n');
  process.exit(values.help ? 0 : 2);
}

// Checked here, not left to the first call: a Hub URL that cannot be parsed would be retried forever, and an
// unknown executor would quietly be the process one.
if (!isHubAddress(values.hub)) refuse(`--hub takes the Hub's http:// or https:// URL, got ${values.hub}`);
if (values.executor !== 'process' && values.executor !== 'sim') refuse(`--executor takes process or sim, got ${values.executor}`);
const simLatencyMs = Number(values['sim-latency-ms']);
if (!(Number.isInteger(simLatencyMs) && simLatencyMs >= 0)) refuse(`--sim-latency-ms takes a whole number of milliseconds, got ${values['sim-latency-ms']}`);

const controlPort = values['control-port'] === undefined ? null : Number(values['control-port']);
if (controlPort !== null && !(Number.isInteger(controlPort) && controlPort >= 0 && controlPort <= 65535)) {
  process.stderr.write(`--control-port must be a port number, got ${values['control-port']}\n`);
  process.exit(2);
}
// Checked here, not left to the Hub: a poll longer than the Hub allows would fail every time, and a report
// period that is not a number would be a report storm.
const pollSeconds = Number(values['poll-seconds']);
if (!(Number.isInteger(pollSeconds) && pollSeconds >= 0 && pollSeconds <= 60)) {
  process.stderr.write(`--poll-seconds must be a whole number of seconds from 0 to 60, got ${values['poll-seconds']}\n`);
  process.exit(2);
}
const reportEveryMs = Number(values['report-every-ms']);
if (!(Number.isInteger(reportEveryMs) && reportEveryMs >= 100)) {
  process.stderr.write(`--report-every-ms must be a whole number of milliseconds, at least 100, got ${values['report-every-ms']}\n`);
  process.exit(2);
}
const hubCredentialSha256 = values['hub-credential-sha256'] ?? process.env.FLEETPLANE_HUB_CREDENTIAL_SHA256 ?? null;
if (hubCredentialSha256 !== null && !/^[0-9a-fA-F]{64}$/.test(hubCredentialSha256)) {
  process.stderr.write('--hub-credential-sha256 must be a SHA-256 digest in hex (64 characters)\n');
  process.exit(2);
}

/** A file's text, or the agent stops with exit 2 naming the option and why it cannot be read. */
function readOption(option: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    return refuse(`${option} ${path} cannot be read: ${(e as Error).message}`);
  }
}

function refuse(message: string): never {
  process.stderr.write(message + '\n');
  process.exit(2);
}

// Certificates are checked before the agent starts: a node that would serve a pair no client accepts, or
// trust a file that is no CA, says so now rather than failing every call later.
const hubCaFile = values['hub-ca'] ?? process.env.FLEETPLANE_HUB_CA ?? null;
let hubCa: string | null = null;
if (hubCaFile !== null) {
  if (!values.hub.startsWith('https://')) refuse(`--hub-ca is given but --hub ${values.hub} is not https://: the Hub would not be verified`);
  hubCa = readOption('--hub-ca', hubCaFile);
  const fault = caFault(hubCa);
  if (fault) refuse(`--hub-ca ${hubCaFile} is ${fault}`);
}
const controlCert = values['control-cert'];
const controlKey = values['control-key'];
if ((controlCert === undefined) !== (controlKey === undefined)) refuse('--control-cert and --control-key go together: give both to serve the control endpoint over HTTPS');
if (controlCert !== undefined && controlPort === null) refuse('--control-cert is given but no --control-port: there is no control endpoint to serve');
const advertise = values['control-advertise'] ?? null;
if (advertise !== null && advertise.includes('://')) refuse(`--control-advertise takes HOST:PORT, got ${advertise}: the scheme follows --control-cert`);
if (advertise !== null && !isPushableAddress(advertise)) {
  refuse(`--control-advertise takes HOST:PORT the Hub can reach (a port of 1-65535, IPv4 parts at most 255, brackets around IPv6 only), got ${advertise}`);
}
let controlTls: { cert: string; key: string } | null = null;
if (controlCert !== undefined && controlKey !== undefined) {
  controlTls = { cert: readOption('--control-cert', controlCert), key: readOption('--control-key', controlKey) };
  const fault = tlsPairFault(controlTls.cert, controlTls.key, new Date());
  if (fault) refuse(`--control-cert ${controlCert} and --control-key ${controlKey} cannot serve TLS: ${fault}`);
}

const log = jsonLog();

const executor: Executor =
  values.executor === 'sim'
    ? createSimExecutor({ latencyMs: simLatencyMs })
    : createProcessExecutor({ stateDir: values['state-dir'], log });
const agent = new Agent({
  hub: values.hub,
  hubCa,
  nodeId: values['node-id'],
  token,
  stateDir: values['state-dir'],
  executor,
  capabilities: values.capabilities ? values.capabilities.split(',').filter(Boolean) : [],
  dataAddress: values['data-address'] ?? null,
  reportEveryMs,
  pollSeconds,
  control: controlPort === null ? null : { host: values['control-host'], port: controlPort, advertise, tls: controlTls },
  hubCredentialSha256: hubCredentialSha256?.toLowerCase() ?? null,
  log,
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // Streams keep running: stopping the agent is not stopping the workload.
    void agent.stop().then(() => executor.close()).then(() => process.exit(0));
  });
}

// A refusal retrying cannot change stops the agent (after the log line saying so) with a code of its own, so a
// supervisor tells it from a failure and does not restart it into the same refusal (fleetplane-agent.service):
// 3 when the node was retired, 4 when the token is not this node's agent credential.
void agent.refused.then(async (refusal) => {
  await executor.close();
  process.exit(refusal.code === 'node_retired' ? 3 : 4);
});
if (await agent.start()) {
  if (controlPort !== null && hubCredentialSha256 === null) {
    log('warn', 'control endpoint without --hub-credential-sha256: not registered, the Hub cannot push to it (node_proxy is closed); attempts come by long poll', {
      control_endpoint: agent.controlEndpoint,
    });
  }
  log('info', 'agent started', { node_id: values['node-id'], boot_id: agent.bootId, hub: values.hub, control_address: agent.controlAddress });
}
