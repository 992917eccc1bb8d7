/** Stream ids: one stream per aggregate, named `<kind>:<id>`. */
export const nodeStream = (nodeId: string): string => `node:${nodeId}`;
export const principalStream = (principal: string): string => `principal:${principal}`;
export const settingsStream = 'settings:reconciliation';
