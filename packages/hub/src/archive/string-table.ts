import { ByteReader, ByteWriter } from './bytes.ts';
import { corrupt } from './segment-error.ts';

/** The segment's distinct strings (types, JSON shapes, JSON string values), each stored once, in order of first use. */
export class StringTableWriter {
  private readonly indexes = new Map<string, number>();
  readonly column = new ByteWriter();

  index(value: string): number {
    let i = this.indexes.get(value);
    if (i === undefined) {
      i = this.indexes.size;
      this.indexes.set(value, i);
      this.column.utf8(value);
    }
    return i;
  }
}

export class StringTableReader {
  private readonly values: string[] = [];

  constructor(column: ByteReader) {
    while (!column.done) this.values.push(column.utf8());
  }

  get(index: number, section: string): string {
    const value = this.values[index];
    if (value === undefined) throw corrupt(`section ${section} refers to string ${index}, beyond the ${this.values.length} stored`);
    return value;
  }
}
