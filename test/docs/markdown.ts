/**
 * Just enough of Markdown (CommonMark, as GitHub renders it) to check a repository's documents: where their
 * links point and which anchors their headings make. Links and headings inside code are not links or
 * headings, so fenced code blocks and code spans are blanked first.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The text with fenced code blocks blanked (their lines kept, empty), so line numbers still hold. */
export function withoutFences(text: string): string {
  const lines = text.split('\n');
  let open: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]!)?.[1];
    if (open === null) {
      if (fence) {
        open = fence;
        lines[i] = '';
      }
    } else {
      // A fence closes with the same character, at least as long, and nothing after it.
      if (fence && fence[0] === open[0] && fence.length >= open.length && lines[i]!.trim() === fence) open = null;
      lines[i] = '';
    }
  }
  return lines.join('\n');
}

/** The text without code: fenced blocks blanked, and each code span's content replaced by spaces. */
export function prose(text: string): string {
  return withoutFences(text).replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (span) => ' '.repeat(span.length));
}

export interface Link {
  target: string;
  line: number;
}

const LINK_PATTERNS = [
  // [text](target "title") and ![alt](target); <target> may hold spaces
  /\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)/g,
  // [label]: target
  /^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm,
  // <https://…>, <mailto:…>
  /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^>\s]*)>/g,
  // raw HTML
  /\b(?:href|src)\s*=\s*"([^"]*)"/g,
];

/** Every link target written in the document, outside code, with its line. */
export function linksOf(text: string): Link[] {
  const body = prose(text);
  const links: Link[] = [];
  for (const pattern of LINK_PATTERNS) {
    for (const m of body.matchAll(pattern)) {
      const target = m[1]!.replace(/^<(.*)>$/, '$1');
      links.push({ target, line: body.slice(0, m.index).split('\n').length });
    }
  }
  return links.sort((a, b) => a.line - b.line);
}

/**
 * The anchors the document's headings get, as GitHub makes them: the heading's text, lower-cased, without
 * punctuation other than `-` and `_`, spaces turned into `-`; a repeated one gets `-1`, `-2`… Explicit
 * `<a name>` and `id` anchors count too.
 */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(text).split('\n')) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = slugOf(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const m of line.matchAll(/<a\s[^>]*\b(?:name|id)\s*=\s*"([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text
    .replace(/<[^>]+>/g, ''); // HTML tags
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}
