import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createZstdCompress, createZstdDecompress, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { corrupt, SegmentError } from './segment-error.ts';

/**
 * The framing of the archive's files (docs/archive-format.md): the magic bytes of the file's kind, the format
 * version, a JSON header anyone can read with `head`, then the named sections, each one zstd frame with its
 * content checksum. A segment file and a checkpoint file are two kinds of it.
 */

export interface ContainerKind {
  /** Eight ASCII bytes that open every file of the kind. */
  magic: Buffer;
  /** What the kind is called in an error. */
  what: string;
}

export const SEGMENT_FILE: ContainerKind = { magic: Buffer.from('FLEETSEG', 'ascii'), what: 'segment file' };
export const CHECKPOINT_FILE: ContainerKind = { magic: Buffer.from('FLEETCKP', 'ascii'), what: 'checkpoint file' };
export const FORMAT_VERSION = 1;
/** The magic (8 bytes), the version (2 bytes) and the header's length (4 bytes). */
const PREAMBLE = 14;
/** Sections are mostly random bytes (UUIDs, hashes) and varints; stronger levels gained little and cost time. */
const ZSTD_LEVEL = 3;

export interface SectionEntry {
  name: string;
  /** Length in the file: the compressed frame. */
  bytes: number;
  /** Length once decompressed. */
  raw_bytes: number;
}

/** The header's fields besides `sections`; the segment file defines them. */
export type HeaderFields = Record<string, unknown>;

const COMPRESSION = { params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL, [constants.ZSTD_c_checksumFlag]: 1 } };

/** A section compressed: its one zstd frame, in the chunks it came in, and its length before. */
export interface CompressedSection {
  name: string;
  frame: Buffer[];
  raw_bytes: number;
}

export function compressSection(name: string, raw: Uint8Array): CompressedSection {
  return { name, frame: [zstdCompressSync(raw, COMPRESSION)], raw_bytes: raw.length };
}

/** A section compressed as its chunks come, so that only the compressed frame is ever held, and not copied. */
export async function compressSectionStream(name: string, raw: AsyncIterable<Uint8Array>): Promise<CompressedSection> {
  let rawBytes = 0;
  const frame: Buffer[] = [];
  const counted = async function* () {
    for await (const chunk of raw) {
      rawBytes += chunk.length;
      yield chunk;
    }
  };
  await pipeline(Readable.from(counted()), createZstdCompress(COMPRESSION), async (compressed: AsyncIterable<Buffer>) => {
    for await (const chunk of compressed) frame.push(chunk);
  });
  return { name, frame, raw_bytes: rawBytes };
}

export function writeContainer(kind: ContainerKind, fields: HeaderFields, sections: Array<[name: string, raw: Uint8Array]>): Buffer {
  return assembleContainer(kind, fields, sections.map(([name, raw]) => compressSection(name, raw)));
}

/** The file: preamble, header (the given fields and the section list), then the frames in the given order. */
export function assembleContainer(kind: ContainerKind, fields: HeaderFields, sections: readonly CompressedSection[]): Buffer {
  const header = Buffer.from(
    JSON.stringify({ ...fields, compression: 'zstd', sections: sections.map((s) => ({ name: s.name, bytes: byteLength(s.frame), raw_bytes: s.raw_bytes })) }),
    'utf8',
  );
  const preamble = Buffer.alloc(PREAMBLE);
  kind.magic.copy(preamble);
  preamble.writeUInt16BE(FORMAT_VERSION, kind.magic.length);
  preamble.writeUInt32BE(header.length, kind.magic.length + 2);
  return Buffer.concat([preamble, header, ...sections.flatMap((s) => s.frame)]);
}

const byteLength = (chunks: readonly Buffer[]) => chunks.reduce((n, c) => n + c.length, 0);

/** How many bytes a file's preamble and header take, from its preamble's first 14 bytes (null: fewer were given). */
export function headerEnd(file: Uint8Array): number | null {
  if (file.length < PREAMBLE) return null;
  return PREAMBLE + Buffer.from(file.buffer, file.byteOffset, file.length).readUInt32BE(PREAMBLE - 4);
}

export interface Container {
  header: HeaderFields & { sections: SectionEntry[] };
  /** The decompressed sections by name. */
  section(name: string): Uint8Array;
  /** A section decompressed a chunk at a time, for one too large to hold whole. */
  sectionChunks(name: string): AsyncGenerator<Buffer>;
}

/** The header alone, without decompressing any section. */
export function readContainerHeader(kind: ContainerKind, file: Uint8Array): Container['header'] {
  return parse(kind, file).header;
}

export function readContainer(kind: ContainerKind, file: Uint8Array, expected: readonly string[]): Container {
  const { header, bodyOffset } = parse(kind, file);
  const names = header.sections.map((s) => s.name);
  const missing = expected.filter((n) => !names.includes(n));
  if (missing.length > 0) throw corrupt(`sections ${missing.join(', ')} are missing`);
  const offsets = new Map<string, { start: number; entry: SectionEntry }>();
  let offset = bodyOffset;
  for (const entry of header.sections) {
    offsets.set(entry.name, { start: offset, entry });
    offset += entry.bytes;
  }
  if (offset !== file.length) {
    throw corrupt(offset > file.length ? `the file ends ${offset - file.length} bytes early (truncated?)` : `${file.length - offset} bytes follow the last section`);
  }
  const located = (name: string) => {
    const at = offsets.get(name);
    if (at === undefined) throw corrupt(`section ${name} is missing`);
    return { frame: file.subarray(at.start, at.start + at.entry.bytes), raw_bytes: at.entry.raw_bytes };
  };
  const undecompressable = (name: string, e: unknown) => corrupt(`section ${name} does not decompress (${(e as Error).message})`);
  const wrongLength = (name: string, length: number, raw_bytes: number) => corrupt(`section ${name} holds ${length} bytes, its header says ${raw_bytes}`);
  return {
    header,
    section(name) {
      const { frame, raw_bytes } = located(name);
      let raw: Buffer;
      try {
        raw = zstdDecompressSync(frame, { maxOutputLength: Math.max(1, raw_bytes) });
      } catch (e) {
        throw undecompressable(name, e);
      }
      if (raw.length !== raw_bytes) throw wrongLength(name, raw.length, raw_bytes);
      return raw;
    },
    async *sectionChunks(name) {
      const { frame, raw_bytes } = located(name);
      const decompress = createZstdDecompress();
      decompress.end(frame);
      let length = 0;
      const chunks = decompress[Symbol.asyncIterator]();
      try {
        for (;;) {
          let next: IteratorResult<Buffer>;
          try {
            next = await chunks.next();
          } catch (e) {
            throw undecompressable(name, e);
          }
          if (next.done) break;
          length += next.value.length;
          if (length > raw_bytes) throw wrongLength(name, length, raw_bytes);
          yield next.value;
        }
      } finally {
        decompress.destroy();
      }
      if (length !== raw_bytes) throw wrongLength(name, length, raw_bytes);
    },
  };
}

function parse(kind: ContainerKind, file: Uint8Array): { header: Container['header']; bodyOffset: number } {
  const bytes = Buffer.from(file.buffer, file.byteOffset, file.length);
  if (bytes.length < PREAMBLE || !bytes.subarray(0, kind.magic.length).equals(kind.magic)) {
    throw corrupt(`it does not begin with ${kind.magic.toString('ascii')}: not a Fleetplane ${kind.what}`);
  }
  const version = bytes.readUInt16BE(kind.magic.length);
  if (version !== FORMAT_VERSION) {
    throw new SegmentError(
      'segment_version_unsupported',
      `${kind.what} format version ${version} is not supported: this Fleetplane reads version ${FORMAT_VERSION} (docs/archive-format.md)`,
    );
  }
  const length = bytes.readUInt32BE(kind.magic.length + 2);
  if (PREAMBLE + length > bytes.length) throw corrupt('the file ends inside its header (truncated?)');
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString('utf8', PREAMBLE, PREAMBLE + length));
  } catch {
    throw corrupt('its header is not JSON');
  }
  if (!isHeader(header)) throw corrupt('its header has no valid section list');
  return { header, bodyOffset: PREAMBLE + length };
}

function isHeader(h: unknown): h is Container['header'] {
  if (typeof h !== 'object' || h === null || !Array.isArray((h as { sections?: unknown }).sections)) return false;
  const seen = new Set<string>();
  return (h as { sections: unknown[] }).sections.every((s) => {
    const e = s as Partial<SectionEntry>;
    const ok =
      typeof s === 'object' && s !== null && typeof e.name === 'string' && !seen.has(e.name) &&
      Number.isSafeInteger(e.bytes) && e.bytes! >= 0 && Number.isSafeInteger(e.raw_bytes) && e.raw_bytes! >= 0;
    if (ok) seen.add(e.name!);
    return ok;
  });
}
