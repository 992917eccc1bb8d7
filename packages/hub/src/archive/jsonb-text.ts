/**
 * A JSON value as PostgreSQL prints it as `jsonb` (`value::jsonb::text`), which is what event hashes cover:
 * `", "` and `": "` between items, object keys by UTF-8 length and then bytewise, strings escaped as JSON
 * requires, numbers in plain decimal. Numbers are doubles; the log's are, since the Hub writes events' JSON
 * from JavaScript values, and PostgreSQL keeps a number as the decimal it was sent.
 */
export function jsonbText(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return decimal(value);
    case 'string':
      return JSON.stringify(value);
    default: {
      if (Array.isArray(value)) return `[${value.map(jsonbText).join(', ')}]`;
      const o = value as Record<string, unknown>;
      const keys = Object.keys(o)
        .map((k) => ({ k, b: Buffer.from(k, 'utf8') }))
        .sort((x, y) => x.b.length - y.b.length || Buffer.compare(x.b, y.b));
      return `{${keys.map(({ k }) => `${JSON.stringify(k)}: ${jsonbText(o[k])}`).join(', ')}}`;
    }
  }
}

/** JavaScript's shortest text of a double, exponent written out: `1.5e-7` is `0.00000015`, `1e21` a 1 and 21 zeros. */
function decimal(n: number): string {
  const text = String(n);
  const e = text.indexOf('e');
  if (e < 0) return text;
  const sign = text.startsWith('-') ? '-' : '';
  const [whole, fraction = ''] = text.slice(sign.length, e).split('.') as [string, string?];
  const digits = whole + fraction;
  const point = whole.length + Number(text.slice(e + 1));
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
