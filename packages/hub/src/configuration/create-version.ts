import { decideConfigVersion, ok, type NewConfigVersion } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { newId } from '../ids.ts';

/** POST /config-versions: stores immutable content with its digest. */
export function createConfigVersion(input: NewConfigVersion): Command<{ parentExists: boolean }, { configVersion: string }> {
  const configVersion = newId('cv');
  return {
    name: 'CreateConfigVersion',
    async load(trx) {
      if (input.parent === null) return { parentExists: false };
      const row = await trx.selectFrom('config_versions').select('config_version').where('config_version', '=', input.parent).executeTakeFirst();
      return { parentExists: !!row };
    },
    decide({ parentExists }) {
      const decided = decideConfigVersion(input, parentExists, configVersion);
      if (!decided.ok) return decided;
      return ok({ events: decided.value, expectedVersions: {}, result: { configVersion } });
    },
  };
}
