import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { openApiDocument } from '../../packages/hub/src/http/openapi.ts';
import { allRoutes } from '../../packages/hub/src/http/routes/all.ts';

// Every answer a test receives through the test Hub's `call` is held to the OpenAPI document (issue 22 item 3):
// a status the route does not declare, an error code it does not list, a header or content type it does not
// name, or a body its schema refuses fails the test that received it.

interface Operation {
  operationId: string;
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: object }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { headers: Record<string, unknown> };
}

export const DOCUMENT = openApiDocument(allRoutes, 'test') as Document;

/** An answer as the client received it: the body as sent (text), and parsed when it is JSON. */
export interface Answer {
  method: string;
  /** The request path, with or without a query. */
  path: string;
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

const ajv = new Ajv({ allErrors: true, strict: false });
// ajv-formats is CommonJS with its plugin as `default`.
formats.default(ajv);
const validators = new Map<string, ValidateFunction>();

/** The answers seen in this test file: `operationId status` (the contract test asks that every route was answered). */
export const answered = new Set<string>();

// Express matches a path without regard to case or a trailing slash; a route whose path is all literal wins.
const matchers = Object.entries(DOCUMENT.paths)
  .sort(([a], [b]) => Number(a.includes('{')) - Number(b.includes('{')))
  .map(([template, operations]) => ({
    pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}/?$`, 'i'),
    operations,
  }));

/** The operation a request reached, or undefined for one no route takes (the console, a 404). */
export function operationOf(method: string, path: string): Operation | undefined {
  const bare = path.split('?')[0]!;
  return matchers.find((m) => m.pattern.test(bare) && m.operations[method.toLowerCase()])?.operations[method.toLowerCase()];
}

/** What is wrong with an answer by the route's contract: nothing (an empty list) for one that keeps it. */
export function breaches(answer: Answer): string[] {
  const op = operationOf(answer.method, answer.path);
  if (!op) return [];
  const declared = op.responses[String(answer.status)];
  if (!declared) return [`status ${answer.status} is not declared (declared: ${Object.keys(op.responses).join(', ')})`];
  const problems: string[] = [];
  if (!answer.headers.get('x-correlation-id')) problems.push('no X-Correlation-Id');
  for (const name of Object.keys(DOCUMENT.components.headers)) {
    if (answer.headers.has(name) && !declared.headers?.[name]) problems.push(`header ${name} is not declared`);
  }
  const [mediaType, media] = Object.entries(declared.content ?? {})[0] ?? [];
  const contentType = answer.headers.get('content-type') ?? '';
  if (!mediaType || !media) {
    if (answer.text !== '') problems.push(`a body where none is declared: ${answer.text.slice(0, 200)}`);
    return problems;
  }
  if (!contentType.startsWith(mediaType)) problems.push(`content type ${contentType}, declared ${mediaType}`);
  const key = `${op.operationId} ${answer.status}`;
  if (!validators.has(key)) validators.set(key, ajv.compile({ ...media.schema, components: DOCUMENT.components }));
  const validate = validators.get(key)!;
  const body = mediaType === 'application/json' ? answer.body : answer.text;
  if (!validate(body)) {
    problems.push(...validate.errors!.map((e) => `body${e.instancePath} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`));
  }
  return problems;
}

/** Throws, naming every breach, when an answer does not keep its route's contract; else counts it `answered`. */
export function holdToContract(answer: Answer): void {
  const problems = breaches(answer);
  const op = operationOf(answer.method, answer.path);
  if (op && problems.length === 0) answered.add(`${op.operationId} ${answer.status}`);
  if (problems.length === 0) return;
  const code = typeof answer.body === 'object' && answer.body !== null && 'code' in answer.body ? ` (${String(answer.body.code)})` : '';
  throw new Error(`${answer.method} ${answer.path} answered ${answer.status}${code} outside the OpenAPI document:\n  ${problems.join('\n  ')}`);
}
