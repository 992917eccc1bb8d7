import { TestEnvironment } from 'jest-environment-node';
import type { Circus } from '@jest/types';

/**
 * Node environment that remembers whether a test in the file failed, so its database can be kept; and that
 * collects garbage once a file is done (`npm test` runs Jest with `--expose-gc`, which its workers inherit).
 * A worker runs dozens of files; left to itself it ended the run holding over a gigabyte of their garbage and
 * took longer than Jest's grace to exit, which Jest reports as a worker "failed to exit gracefully".
 */
export default class FleetplaneEnvironment extends TestEnvironment {
  handleTestEvent(event: Circus.Event): void {
    if (event.name === 'test_fn_failure' || event.name === 'hook_failure') {
      (this.global as { __fleetplaneTestFailed?: boolean }).__fleetplaneTestFailed = true;
    }
  }

  override async teardown(): Promise<void> {
    await super.teardown();
    (globalThis as { gc?: () => void }).gc?.();
  }
}
