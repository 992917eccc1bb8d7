import { z } from 'zod';

export const ConfigFormat = z.enum(['yaml', 'json', 'toml', 'text']);
export type ConfigFormat = z.infer<typeof ConfigFormat>;

export const configVersionStream = (configVersion: string): string => `config:${configVersion}`;

export interface ConfigVersionCreatedData {
  config_version: string;
  digest: string;
  format: ConfigFormat;
  content: string;
  parent: string | null;
}
