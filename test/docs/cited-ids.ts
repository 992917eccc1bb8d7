import ts from 'typescript';

/** A behaviour id: an area letter and a number. Written bare, only the areas A-J are read as ids ("S3" is a service). */
const BARE_ID = /\b[A-J][1-9][0-9]?\b/g;
/** Any area's id, where the text says it is one: after the word SPEC, or leading a test title. */
const NAMED_ID = /\bSPEC ([A-Z][1-9][0-9]?)\b/g;
const LEADING_IDS = /^(?:[A-Z][1-9][0-9]?\s+)+/;

/** The behaviour ids a text cites: bare ids of the areas A-J, ids of any area after `SPEC`, and (in a test title) the ids it starts with. */
export function idsIn(text: string, title = false): string[] {
  const ids = [...text.matchAll(BARE_ID)].map((m) => m[0]);
  for (const m of text.matchAll(NAMED_ID)) ids.push(m[1]!);
  if (title) ids.push(...(LEADING_IDS.exec(text)?.[0].split(/\s+/).filter((id) => id !== '') ?? []));
  return [...new Set(ids)];
}

export interface Citation {
  id: string;
  line: number;
  /** Where it was read: a test title or a comment. */
  in: 'title' | 'comment';
}

const TEST_FUNCTIONS = new Set(['test', 'it', 'describe']);

/**
 * The behaviour ids a TypeScript file cites in its comments and in the titles of its tests (`test`, `it`,
 * `describe`, with `.each`, `.skip`, `.only` and the like). Strings and code are not read: `'%E0%A4'` in a
 * fuzz table is no citation.
 */
export function citedIds(fileName: string, text: string): Citation[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const citations: Citation[] = [];
  const cite = (from: string, at: number, kind: Citation['in']) => {
    const line = source.getLineAndCharacterOfPosition(at).line + 1;
    for (const id of idsIn(from, kind === 'title')) citations.push({ id, line, in: kind });
  };
  const comments = new Set<number>();
  const commentsAt = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (comments.has(range.pos)) continue;
      comments.add(range.pos);
      cite(text.slice(range.pos, range.end), range.pos, 'comment');
    }
  };
  const visit = (node: ts.Node): void => {
    commentsAt(ts.getLeadingCommentRanges(text, node.getFullStart()));
    commentsAt(ts.getTrailingCommentRanges(text, node.getEnd()));
    if (ts.isCallExpression(node) && isTestFunction(node.expression)) {
      const title = node.arguments[0];
      if (title && (ts.isStringLiteral(title) || ts.isNoSubstitutionTemplateLiteral(title))) cite(title.text, title.getStart(), 'title');
      else if (title && ts.isTemplateExpression(title)) {
        cite([title.head.text, ...title.templateSpans.map((s) => s.literal.text)].join(' '), title.getStart(), 'title');
      }
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return citations;
}

/** `test`, `test.skip`, `test.each(table)`, `describe.each\`…\``: a call whose callee starts with a test function. */
function isTestFunction(callee: ts.Expression): boolean {
  let root: ts.Expression = callee;
  for (;;) {
    if (ts.isPropertyAccessExpression(root)) root = root.expression;
    else if (ts.isCallExpression(root)) root = root.expression;
    else if (ts.isTaggedTemplateExpression(root)) root = root.tag;
    else break;
  }
  return ts.isIdentifier(root) && TEST_FUNCTIONS.has(root.text);
}
