// `node scripts/count-casts.mjs [--list]`: the type assertions (`x as T`, `<T>x`) left in shipped
// code, i.e. packages/*/src without tests and without the private test kit. `as const` is not a
// cast (it narrows, never widens or lies), so it is not counted. ESLint's
// consistent-type-assertions rule keeps the number from growing; this script gives the figure.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');
const packages = join(root, 'packages');

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) yield path;
  }
}

const isConst = (node) => ts.isTypeReferenceNode(node.type) && node.type.typeName.getText() === 'const';

const casts = [];
for (const name of readdirSync(packages)) {
  if (name === 'testkit') continue;
  let files;
  try {
    files = [...sourceFiles(join(packages, name, 'src'))];
  } catch {
    continue;
  }
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
    const visit = (node) => {
      if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !isConst(node)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        casts.push(`${relative(root, file)}:${line + 1}  ${node.getText().replace(/\s+/g, ' ').slice(0, 100)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}

if (process.argv.includes('--list')) for (const cast of casts) process.stdout.write(`${cast}\n`);
process.stdout.write(`${casts.length} casts in non-test source\n`);
