import { isHubAddress } from './hub-address.ts';

test('a Hub address is an http:// or https:// URL; anything else, or nothing, is not', () => {
  expect(['http://hub:8080', 'https://hub.example/', 'http://127.0.0.1:9'].map(isHubAddress)).toEqual([true, true, true]);
  expect(['not-a-url', 'localhost:8080', 'ftp://hub', '', undefined].map(isHubAddress)).toEqual([false, false, false, false, false]);
});
