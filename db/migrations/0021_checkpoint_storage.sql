-- A checkpoint file is zstd output: PostgreSQL's own compression saves nothing on it, and a value stored
-- compressed must be decompressed from its start for every slice read of it. Stored out of line and
-- uncompressed, a slice (substring) reads only the TOAST chunks it covers: the Hub reads a checkpoint a slice
-- at a time (packages/hub/src/checkpoints/stored.ts). Applies to the rows written from now on.
ALTER TABLE projection_checkpoints ALTER COLUMN content SET STORAGE EXTERNAL;
