import { ByteReader, ByteWriter, isWellFormed } from './bytes.ts';
import { corrupt, invalid } from './segment-error.ts';
import type { StringTableReader, StringTableWriter } from './string-table.ts';
import { readUuid, writeUuid, isCanonicalUuid } from './uuid-columns.ts';

/**
 * One JSON field of every event (data, or metadata), split column-wise: its shape (the JSON text with every
 * number and string replaced by a placeholder of its kind) from the string table, and its numbers, strings and
 * UUIDs in typed columns. Integers, strings and UUIDs are written against the same place in the previous event
 * of the same stream with the same shape: what a node repeats of its last report costs next to nothing.
 * docs/archive-format.md describes the layout.
 */

const INTEGER = 0;
const NUMBER = 1;
const STRING = 2;
const UUID = 3;
type Kind = typeof INTEGER | typeof NUMBER | typeof STRING | typeof UUID;

/** The placeholder of each kind in a shape's text. */
const PLACEHOLDER = ['0', '1', '"s"', '"u"'] as const;

export const JSON_COLUMNS = ['shape', 'integers', 'numbers', 'strings', 'uuids', 'uuid_time', 'uuid_rest'] as const;
export type JsonColumn = (typeof JSON_COLUMNS)[number];

/** The leaves of the last value of one shape in one stream: [shape][stream] → values in document order. */
type Previous = Array<Array<Array<number | string> | undefined>>;

/** A value taken apart and not yet written: taking it apart is where a value that is not JSON is refused. */
export interface JsonParts {
  shape: string;
  kinds: Kind[];
  values: Array<number | string>;
}

export class JsonColumnsWriter {
  readonly columns: Record<JsonColumn, ByteWriter> = {
    shape: new ByteWriter(),
    integers: new ByteWriter(),
    numbers: new ByteWriter(),
    strings: new ByteWriter(),
    uuids: new ByteWriter(),
    uuid_time: new ByteWriter(),
    uuid_rest: new ByteWriter(),
  };
  private readonly table: StringTableWriter;
  private readonly previous: Previous = [];
  private kinds: Kind[] = [];
  private values: Array<number | string> = [];
  private where = '';

  constructor(table: StringTableWriter) {
    this.table = table;
  }

  /** `where` names the value in an error. */
  split(value: unknown, where: string): JsonParts {
    this.kinds = [];
    this.values = [];
    this.where = where;
    const shape = this.shape(value, 0);
    return { shape, kinds: this.kinds, values: this.values };
  }

  /** `timeMs` is the event's time, which UUID v7 timestamps are written against. */
  write({ shape: text, kinds, values }: JsonParts, stream: number, timeMs: number): void {
    const shape = this.table.index(text);
    this.columns.shape.unsigned(shape);
    const byStream = (this.previous[shape] ??= []);
    const before = byStream[stream];
    for (let i = 0; i < kinds.length; i++) {
      const v = values[i]!;
      switch (kinds[i]) {
        case INTEGER:
          this.columns.integers.delta(v as number, before === undefined ? 0 : (before[i] as number));
          break;
        case NUMBER:
          this.columns.numbers.float64(v as number);
          break;
        case STRING: {
          const index = this.table.index(v as string);
          this.columns.strings.unsigned(before !== undefined && before[i] === index ? 0 : index + 1);
          values[i] = index;
          break;
        }
        case UUID:
          if (before !== undefined && before[i] === v) {
            this.columns.uuids.unsigned(0);
          } else {
            this.columns.uuids.unsigned(1);
            writeUuid(v as string, timeMs, this.columns.uuid_time, this.columns.uuid_rest);
          }
          break;
      }
    }
    byStream[stream] = values;
  }

  private leaf(kind: Kind, value: number | string): string {
    this.kinds.push(kind);
    this.values.push(value);
    return PLACEHOLDER[kind];
  }

  private shape(v: unknown, depth: number): string {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'boolean':
        return v ? 'true' : 'false';
      case 'number':
        if (Number.isSafeInteger(v) && !Object.is(v, -0)) return this.leaf(INTEGER, v);
        if (Number.isFinite(v)) return this.leaf(NUMBER, v);
        throw invalid(`${this.where} holds ${v}, which JSON cannot represent`);
      case 'string':
        if (isCanonicalUuid(v)) return this.leaf(UUID, v);
        if (!isWellFormed(v)) throw invalid(`${this.where} holds a string with a lone surrogate, which UTF-8 cannot represent`);
        return this.leaf(STRING, v);
      case 'object': {
        if (depth > 1000) throw invalid(`${this.where} is nested deeper than 1000 levels`);
        if (Array.isArray(v)) {
          let text = '[';
          for (let i = 0; i < v.length; i++) text += (i > 0 ? ',' : '') + this.shape(v[i], depth + 1);
          return text + ']';
        }
        const proto = Object.getPrototypeOf(v);
        if (proto !== Object.prototype && proto !== null) throw invalid(`${this.where} holds a ${proto?.constructor?.name ?? 'non-plain'} object, not JSON`);
        let text = '{';
        let first = true;
        for (const key of Object.keys(v)) {
          text += (first ? '' : ',') + JSON.stringify(key) + ':' + this.shape((v as Record<string, unknown>)[key], depth + 1);
          first = false;
        }
        return text + '}';
      }
      default:
        throw invalid(`${this.where} holds ${typeof v}, which is not JSON`);
    }
  }
}

type Columns = Record<JsonColumn, ByteReader>;

export class JsonColumnsReader {
  private readonly columns: Columns;
  private readonly table: StringTableReader;
  private readonly previous: Previous = [];
  private readonly shapes = new Map<number, string>();
  private values: Array<number | string> = [];
  private before: Array<number | string> | undefined;
  private timeMs = 0;

  constructor(columns: Columns, table: StringTableReader) {
    this.columns = columns;
    this.table = table;
  }

  read(stream: number, timeMs: number): unknown {
    const shapeIndex = this.columns.shape.unsigned();
    const text = this.shapeText(shapeIndex);
    const byStream = (this.previous[shapeIndex] ??= []);
    this.before = byStream[stream];
    this.values = [];
    this.timeMs = timeMs;
    const value = this.fill(JSON.parse(text));
    byStream[stream] = this.values;
    return value;
  }

  /** Validated once per shape: only placeholders, objects, arrays, booleans and null. */
  private shapeText(index: number): string {
    let text = this.shapes.get(index);
    if (text === undefined) {
      text = this.table.get(index, this.columns.shape.section);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw corrupt(`section ${this.columns.shape.section} refers to string ${index}, which is not a JSON shape`);
      }
      checkShape(parsed, this.columns.shape.section);
      this.shapes.set(index, text);
    }
    return text;
  }

  /** Replaces the placeholders of a freshly parsed shape, in document order, by the values of the columns. */
  private fill(v: unknown): unknown {
    if (v === null || typeof v === 'boolean') return v;
    if (typeof v === 'object') {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) v[i] = this.fill(v[i]);
      } else {
        const o = v as Record<string, unknown>;
        for (const key of Object.keys(o)) o[key] = this.fill(o[key]);
      }
      return v;
    }
    const i = this.values.length;
    const previous = this.before?.[i];
    switch (v) {
      case 0: {
        const n = this.columns.integers.delta(previous === undefined ? 0 : (previous as number));
        this.values.push(n);
        return n;
      }
      case 1:
        this.values.push(0);
        return this.columns.numbers.float64();
      case 's': {
        const ref = this.columns.strings.unsigned();
        if (ref === 0 && previous === undefined) throw corrupt(`section ${this.columns.strings.section} repeats a string that no earlier event holds`);
        const index = ref === 0 ? (previous as number) : ref - 1;
        this.values.push(index);
        return this.table.get(index, this.columns.strings.section);
      }
      default: {
        const same = this.columns.uuids.unsigned();
        if (same > 1 || (same === 0 && previous === undefined)) throw corrupt(`section ${this.columns.uuids.section} holds ${same} where no such UUID can be`);
        const uuid = same === 0 ? (previous as string) : readUuid(this.timeMs, this.columns.uuid_time, this.columns.uuid_rest);
        this.values.push(uuid);
        return uuid;
      }
    }
  }
}

function checkShape(v: unknown, section: string): void {
  if (v === null || typeof v === 'boolean' || v === 0 || v === 1 || v === 's' || v === 'u') return;
  if (typeof v === 'object') {
    for (const child of Object.values(v)) checkShape(child, section);
    return;
  }
  throw corrupt(`section ${section} refers to a shape holding ${JSON.stringify(v)}, which is no placeholder`);
}
