import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

test("issue 22 item 3: the console's types are generated from the OpenAPI document and up to date (npm run console-types)", () => {
  const generated = execFileSync(process.execPath, [join(ROOT, 'scripts/console-types.ts'), '--print'], { cwd: ROOT, encoding: 'utf8' });
  expect(generated).toContain("export type NodeView = components['schemas']['NodeView'];");
  expect(readFileSync(join(ROOT, 'packages/console/src/hub-api.ts'), 'utf8')).toBe(generated);
});
