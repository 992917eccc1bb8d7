import { controlEndpoint, isPushableAddress } from './control-address.ts';

test('D1 a control address the Hub can push to: host:port or https://host:port, a port of 1-65535, a host a URL holds', () => {
  expect(['10.0.0.5:7100', 'edge-1.internal:7100', 'https://edge-1:7443', '[::1]:7100', '[fe80::1]:1'].map(isPushableAddress)).toEqual([true, true, true, true, true]);
  expect(['10.0.0.5:99999', '10.0.0.256:7100', '[10.0.0.5]:7100', 'edge-1:0', 'edge-1', 'http://edge-1:7100', 'edge 1:7100', ''].map(isPushableAddress)).toEqual(
    [false, false, false, false, false, false, false, false],
  );
  expect([controlEndpoint('edge-1:7100'), controlEndpoint('https://edge-1:7443')]).toEqual(['http://edge-1:7100', 'https://edge-1:7443']);
});
