import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { FleetEvent } from '../events/fleet-event.ts';
import { fail, ok, type Result } from '../result.ts';
import { ConfigFormat, configVersionStream, type ConfigVersionCreatedData } from './events.ts';

export const ConfigVersionId = z.string().min(1).max(200);

/** The largest content a version holds, in UTF-8 bytes: as stored, and as `size_bytes` shows it. */
export const CONFIG_CONTENT_MAX_BYTES = 1024 * 1024;

/** POST /config-versions: the content is stored as given, byte for byte, and never changes. */
export const NewConfigVersion = z
  .object({
    content: z
      .string()
      .max(CONFIG_CONTENT_MAX_BYTES)
      .refine((s) => Buffer.byteLength(s, 'utf8') <= CONFIG_CONTENT_MAX_BYTES, `at most ${CONFIG_CONTENT_MAX_BYTES} bytes in UTF-8`),
    format: ConfigFormat,
    parent: ConfigVersionId.nullable().default(null),
  })
  .strict();
export type NewConfigVersion = z.infer<typeof NewConfigVersion>;

export const configDigest = (content: string): string => `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`;

/** A new immutable version. Its parent, when named, must exist: lineage is what a rollback walks back along. */
export function decideConfigVersion(input: NewConfigVersion, parentExists: boolean, configVersion: string): Result<FleetEvent[]> {
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
  return ok([{ streamId: configVersionStream(configVersion), type: 'ConfigVersionCreated', data }]);
}
