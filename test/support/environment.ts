import { TestEnvironment } from 'jest-environment-node';
import type { Circus } from '@jest/types';

/** Node environment that remembers whether a test in the file failed, so its database can be kept. */
export default class FleetplaneEnvironment extends TestEnvironment {
  handleTestEvent(event: Circus.Event): void {
    if (event.name === 'test_fn_failure' || event.name === 'hook_failure') {
      (this.global as { __fleetplaneTestFailed?: boolean }).__fleetplaneTestFailed = true;
    }
  }
}
