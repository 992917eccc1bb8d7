// pg's own conversion of a query parameter to the text it sends (pg/lib/utils.js), which @types/pg leaves out.
declare module 'pg/lib/utils.js' {
  /** The text pg sends for a parameter, raw bytes as a Buffer, or null for NULL. */
  export function prepareValue(value: unknown): string | Buffer | null;
}
