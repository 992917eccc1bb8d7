import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { NewEvent } from '../events/envelope.ts';
import { fail, ok, type Result } from '../result.ts';

export const ConfigFormat = z.enum(['yaml', 'json', 'toml', 'text']);
export type ConfigFormat = z.infer<typeof ConfigFormat>;

export const ConfigVersionId = z.string().min(1).max(200);

/** POST /config-versions: the content is stored as given, byte for byte, and never changes. */
export const NewConfigVersion = z
  .object({
    content: z.string().max(1_048_576),
    format: ConfigFormat,
    parent: ConfigVersionId.nullable().default(null),
  })
  .strict();
export type NewConfigVersion = z.infer<typeof NewConfigVersion>;

export const configVersionStream = (configVersion: string): string => `config:${configVersion}`;

export const configDigest = (content: string): string => `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`;

export interface ConfigVersionCreatedData {
  config_version: string;
  digest: string;
  format: ConfigFormat;
  content: string;
  parent: string | null;
}

/** A new immutable version. Its parent, when named, must exist: lineage is what a rollback walks back along. */
export function decideConfigVersion(input: NewConfigVersion, parentExists: boolean, configVersion: string): Result<NewEvent[]> {
  if (input.parent !== null && !parentExists) {
    return fail('config_version_not_found', `parent configuration version ${input.parent} does not exist`, { config_version: input.parent });
  }
  const data: ConfigVersionCreatedData = {
    config_version: configVersion,
    digest: configDigest(input.content),
    format: input.format,
    content: input.content,
    parent: input.parent,
  };
  return ok([{ streamId: configVersionStream(configVersion), type: 'ConfigVersionCreated', data: { ...data } }]);
}
