/**
 * `npm run console-types`: writes the console's types of the Hub's API (packages/console/src/hub-api.ts)
 * from the OpenAPI document, so they are generated, never copied by hand; `--print` writes them to standard
 * output instead (test/contract/console-types.test.ts compares them with the file).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { openApiDocument } from '../packages/hub/src/http/openapi.ts';
import { allRoutes } from '../packages/hub/src/http/routes/all.ts';

const HEADER = `// Generated from the Hub's OpenAPI document (packages/hub/src/http/openapi.ts) by openapi-typescript;
// do not edit: \`npm run console-types\` writes it again after a route or view changes.
`;

// The Hub's version is left out: it would change the file at every release, and no type depends on it.
const document = openApiDocument(allRoutes, 'generated') as Parameters<typeof openapiTS>[0];
const text = HEADER + astToString(await openapiTS(document, { rootTypes: true, rootTypesNoSchemaPrefix: true, silent: true }));
if (process.argv.includes('--print')) process.stdout.write(text);
else writeFileSync(join(import.meta.dirname, '../packages/console/src/hub-api.ts'), text);
