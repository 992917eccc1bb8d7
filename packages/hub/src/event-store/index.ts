export * from './append.ts';
export * from './read-stream.ts';
export * from './read-all.ts';
export * from './filter.ts';
export * from './follow.ts';
export * from './notify.ts';
export * from './verify-chain.ts';
export * from './recorded.ts';
