import type { ConfigVersionCreatedData, RecordedEvent } from '@fleetplane/core';
import type { Projection, ProjectionQuery } from './projection.ts';

/** The `config_versions` table: immutable configuration content, one row per version. */
export const configVersionsProjection: Projection = {
  name: 'config_versions',
  tables: { config_versions: ['config_version'] },
  handles: ['ConfigVersionCreated'],
  evolve(event: RecordedEvent, db): ProjectionQuery[] {
    const d = event.data as unknown as ConfigVersionCreatedData;
    return [
      db.insertInto('config_versions').values({
        config_version: d.config_version,
        digest: d.digest,
        format: d.format,
        content: d.content,
        parent: d.parent,
        created_by: event.metadata.actor,
        correlation_id: event.metadata.correlation_id,
        created_at: event.recordedAt,
      }),
    ];
  },
};
