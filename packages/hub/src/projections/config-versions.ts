import { projection, type ProjectionQuery } from './projection.ts';

/** The `config_versions` table: immutable configuration content, one row per version. */
export const configVersionsProjection = projection({
  name: 'config_versions',
  tables: { config_versions: ['config_version'] },
  handles: ['ConfigVersionCreated'],
  evolve(event, db): ProjectionQuery[] {
    const d = event.data;
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
});
