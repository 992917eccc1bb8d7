import { corrupt } from './segment-error.ts';

const TWO_POW_52 = 2 ** 52;
const TWO_POW_7 = 128;

/**
 * A growable byte column: unsigned LEB128 varints, zigzag varints for signed values, raw bytes and UTF-8.
 * Numbers stay in doubles on the common path; values a double cannot hold exactly (a zigzag delta between two
 * safe integers can reach 2^54) go through BigInt.
 */
export class ByteWriter {
  private buffer = new Uint8Array(1024);
  private length = 0;

  get size(): number {
    return this.length;
  }

  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }

  private reserve(n: number): void {
    if (this.length + n <= this.buffer.length) return;
    let capacity = this.buffer.length * 2;
    while (capacity < this.length + n) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }

  /** A non-negative safe integer. */
  unsigned(value: number): void {
    this.reserve(8);
    while (value >= TWO_POW_7) {
      this.buffer[this.length++] = (value % TWO_POW_7) | 0x80;
      value = Math.floor(value / TWO_POW_7);
    }
    this.buffer[this.length++] = value;
  }

  /** Any integer number, zigzag coded: 0, -1, 1, -2, … become 0, 1, 2, 3, … */
  signed(value: number): void {
    if (Math.abs(value) < TWO_POW_52) this.unsigned(value >= 0 ? value * 2 : -value * 2 - 1);
    else this.bigSigned(BigInt(value));
  }

  /** The difference `value - previous` of two safe integers, exactly even when it is not itself safe. */
  delta(value: number, previous: number): void {
    const d = value - previous;
    if (Number.isSafeInteger(d)) this.signed(d);
    else this.bigSigned(BigInt(value) - BigInt(previous));
  }

  bigSigned(value: bigint): void {
    let zigzag = value >= 0n ? value * 2n : -value * 2n - 1n;
    while (zigzag >= 128n) {
      this.reserve(1);
      this.buffer[this.length++] = Number(zigzag & 0x7fn) | 0x80;
      zigzag >>= 7n;
    }
    this.reserve(1);
    this.buffer[this.length++] = Number(zigzag);
  }

  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  float64(value: number): void {
    this.reserve(8);
    new DataView(this.buffer.buffer, this.buffer.byteOffset).setFloat64(this.length, value, true);
    this.length += 8;
  }

  /** A string as its UTF-8 byte length (varint) and bytes. */
  utf8(value: string): void {
    this.reserve(value.length * 3 + 16);
    // Encoded past the room its length varint (at most 8 bytes) needs, then moved down behind it.
    const scratch = this.length + 8;
    const { written } = encoder.encodeInto(value, this.buffer.subarray(scratch));
    this.unsigned(written);
    this.buffer.copyWithin(this.length, scratch, scratch + written);
    this.length += written;
  }
}

/** A string UTF-8 can carry: no lone surrogate (with the u flag, a surrogate pair is one code point, not Cs). */
export const isWellFormed = (s: string): boolean => !/\p{Cs}/u.test(s);

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Reads what a ByteWriter wrote; running past the end or meeting an impossible value means a corrupt section. */
export class ByteReader {
  private offset = 0;
  private readonly bytes: Uint8Array;
  readonly section: string;

  constructor(bytes: Uint8Array, section: string) {
    this.bytes = bytes;
    this.section = section;
  }

  get done(): boolean {
    return this.offset === this.bytes.length;
  }

  /** Refuses trailing bytes: a section holds exactly what its columns describe. */
  end(): void {
    if (!this.done) throw corrupt(`section ${this.section} has ${this.bytes.length - this.offset} bytes left over`);
  }

  private byte(): number {
    if (this.offset >= this.bytes.length) throw corrupt(`section ${this.section} ends early`);
    return this.bytes[this.offset++]!;
  }

  /** A varint as a bigint when it exceeds 52 bits, else as a number. */
  private varint(): number | bigint {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= TWO_POW_7;
    }
    let big = BigInt(value);
    let shift = 49n;
    for (;;) {
      const b = this.byte();
      big |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return big;
      shift += 7n;
      if (shift > 70n) throw corrupt(`section ${this.section} holds an over-long varint`);
    }
  }

  unsigned(): number {
    const v = this.varint();
    if (typeof v === 'number') return v;
    return this.safe(v);
  }

  bigSigned(): bigint {
    const v = BigInt(this.varint());
    return v & 1n ? -(v >> 1n) - 1n : v >> 1n;
  }

  signed(): number {
    const v = this.varint();
    if (typeof v === 'bigint') return this.safe(v & 1n ? -(v >> 1n) - 1n : v >> 1n);
    return v % 2 === 1 ? -(v - 1) / 2 - 1 : v / 2;
  }

  /** `previous` plus a delta written by ByteWriter.delta, refused unless the sum is a safe integer. */
  delta(previous: number): number {
    const v = this.varint();
    if (typeof v === 'number' && v < TWO_POW_52) {
      const sum = previous + (v % 2 === 1 ? -(v - 1) / 2 - 1 : v / 2);
      if (Number.isSafeInteger(sum)) return sum;
    }
    const d = BigInt(v);
    return this.safe(BigInt(previous) + (d & 1n ? -(d >> 1n) - 1n : d >> 1n));
  }

  private safe(v: bigint): number {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw corrupt(`section ${this.section} holds an integer beyond JavaScript's safe range`);
    }
    return Number(v);
  }

  raw(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) throw corrupt(`section ${this.section} ends early`);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  float64(): number {
    const b = this.raw(8);
    return new DataView(b.buffer, b.byteOffset, 8).getFloat64(0, true);
  }

  utf8(): string {
    const b = this.raw(this.unsigned());
    try {
      return decoder.decode(b);
    } catch {
      throw corrupt(`section ${this.section} holds a string that is not UTF-8`);
    }
  }
}
