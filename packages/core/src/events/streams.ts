/** Stream ids: one stream per aggregate, named `<kind>:<id>`. */
export const nodeStream = (nodeId: string): string => `node:${nodeId}`;
/** The node a `node:<node_id>` stream belongs to. */
export const nodeOfStream = (streamId: string): string => streamId.slice('node:'.length);
export const principalStream = (principal: string): string => `principal:${principal}`;
export const settingsStream = 'settings:reconciliation';
