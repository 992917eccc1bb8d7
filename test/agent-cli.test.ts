import { startAgentProcess } from './support/process.ts';

// The agent's command line refuses values the Hub would refuse on every request, before it starts.
const args = { hub: 'http://127.0.0.1:9', 'node-id': 'edge-1', token: 't', 'state-dir': '/nonexistent/fleetplane-agent' };

test.each([
  ['poll-seconds', '90', /--poll-seconds must be a whole number of seconds from 0 to 60, got 90/],
  ['poll-seconds', '1.5', /--poll-seconds must be a whole number/],
  ['report-every-ms', 'often', /--report-every-ms must be a whole number of milliseconds, at least 100, got often/],
])('the agent refuses --%s %s with exit code 2 and says why', async (flag, value, message) => {
  await expect(startAgentProcess({ ...args, [flag]: value })).rejects.toThrow(new RegExp(`exited with 2 before it was ready:\\n[^]*${message.source}`));
});
