// `node scripts/check-docs.mjs`: keeps the docs and the decision citations true to the tree, run
// by `pnpm test` (issue 25, item 7). It checks, and prints `file:line: what is missing` for each
// failure (exit 1):
//
// 1. Paths. Every inline code span in README.md and docs/*.md (outside fenced blocks) that reads as
//    a repository path names a file or folder that exists. A span reads as a path when it has no
//    space and none of  : < > * … { } $ ~ ? # = , |  (so URLs, placeholders such as
//    `migrations/<YYYY>-<name>.ts`, globs and shell lines are not paths), does not begin with `/`
//    (an API path), `@` (a package name) or `-` (a flag), and either has a `/` and ends in a file
//    extension or a `/`, or is a bare file name ending in .ts .tsx or .md (a source file or a doc).
//    Output is not checked: paths through a `dist/` or `node_modules/` folder, and paths git
//    ignores (`bench/results-quick.json`, written by a run).
//    A path may be written from the repository root or as any tail of a real path
//    (`http/errors.ts` for packages/daemon/src/http/errors.ts), or relative to the document.
// 2. Names. On a line where a code file is written as "`path`: …", every span after it that is an
//    identifier (`claimDue`, `createTrafficWriter().insert`), up to the next path on the line, must
//    occur as a word in that file (in one of them, when a bare name such as `routes.ts` matches
//    several).
// 3. Citations. Every `§N` or `§N.M` in source comments (packages/*/src, e2e, scripts, bench), and
//    every "decisions §N.M" in the docs, names a heading of docs/decisions.md. A `§` right after
//    "RFC 1234", "interface" or "spec" cites that document instead and is skipped. When the citing
//    line names in backticks a term that some decisions heading names in backticks (`startedAt`),
//    the cited section must contain that term: a citation left behind when its rule moved fails.
// 4. Anchors. Every `docs/<name>.md#<anchor>` in those source files names a heading of that doc, by
//    GitHub's slug (lower case, punctuation dropped, spaces as hyphens, `-1` on a repeated one):
//    a comment's pointer to the figures behind it (docs/performance.md) stays followable.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const root = join(import.meta.dirname, '..');
const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && !f.split('/').includes('node_modules'));
const files = listed.filter((f) => {
  try {
    return statSync(join(root, f)).isFile();
  } catch {
    return false; // deleted in the work tree, not yet in the index
  }
});
const folders = new Set(
  files.flatMap((f) =>
    f
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  ),
);
const problems = [];
const counts = { paths: 0, names: 0, citations: 0, anchors: 0 };
const report = (file, line, message) => problems.push(`${file}:${line}: ${message}`);

const NOT_A_PATH = /[\s:<>*…{}$~?#=,|]/;
const SOURCE_NAME = /^[\w.-]+\.(ts|tsx|md)$/;
const CODE_FILE = /\.(ts|tsx|mts|mjs|cjs|js)$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*(\(\))?(\.[A-Za-z_$][\w$]*(\(\))?)*$/;

function isPath(span) {
  if (NOT_A_PATH.test(span) || /^[/@-]/.test(span)) return false;
  if (span.includes('/')) return /\.[A-Za-z0-9]+$/.test(span) || span.endsWith('/');
  return SOURCE_NAME.test(span);
}

/** The repository files a path names, [] when none; null for build output, which is not checked. */
function resolve(span, doc) {
  const path = span.replace(/\/$/, '');
  const parts = path.split('/');
  if (parts.includes('dist') || parts.includes('node_modules')) return null;
  const relative = normalize(join(dirname(doc), path));
  const exact = [path, relative].filter((p) => files.includes(p) || folders.has(p));
  if (exact.length > 0) return exact;
  const tail = `/${path}`;
  const found = [...files.filter((f) => f.endsWith(tail)), ...[...folders].filter((f) => f.endsWith(tail))];
  return found.length === 0 && ignored(path) ? null : found;
}

const ignored = (path) => {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: root });
    return true;
  } catch {
    return false;
  }
};

const text = new Map();
const read = (file) => {
  if (!text.has(file)) text.set(file, readFileSync(join(root, file), 'utf8'));
  return text.get(file);
};
const hasWord = (file, word) => new RegExp(`(^|[^\\w$])${word.replace(/\$/g, '\\$')}($|[^\\w$])`).test(read(file));

/** Inline code spans of a line, with where each ends. */
const spans = (line) => [...line.matchAll(/`([^`]+)`/g)].map((m) => ({ code: m[1], end: m.index + m[0].length }));

function checkDoc(doc) {
  let fenced = false;
  read(doc)
    .split('\n')
    .forEach((line, index) => {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      if (fenced) return;
      let owner = null;
      for (const { code, end } of spans(line)) {
        if (isPath(code)) {
          counts.paths += 1;
          const found = resolve(code, doc);
          if (found !== null && found.length === 0)
            report(doc, index + 1, `\`${code}\` names no file or folder of the repository`);
          owner = found && found.length > 0 && CODE_FILE.test(code) && line[end] === ':' ? { code, found } : null;
        } else if (owner && IDENTIFIER.test(code)) {
          for (const name of code.replace(/\(\)/g, '').split('.')) {
            counts.names += 1;
            if (!owner.found.some((f) => hasWord(f, name)))
              report(doc, index + 1, `\`${name}\` is not in \`${owner.code}\` (${owner.found.join(', ')})`);
          }
        }
      }
    });
}

// docs/decisions.md: each section's number, its heading and its text, and the terms headings name.
const sections = new Map();
{
  let current = null;
  for (const line of read('docs/decisions.md').split('\n')) {
    const heading = /^#{2,3} (\d+(?:\.\d+)?)[. ]/.exec(line);
    if (heading) sections.set(heading[1], (current = { heading: line, body: line }));
    else if (current) current.body += `\n${line}`;
  }
}
const headingTerms = new Set(
  [...sections.values()].flatMap((s) => (/^###/.test(s.heading) ? spans(s.heading).map((x) => x.code) : [])),
);

function checkCitations(file, pattern) {
  read(file)
    .split('\n')
    .forEach((line, index) => {
      for (const match of line.matchAll(pattern)) {
        if (/(RFC\s*\d+|interface(\.md)?|spec)\s*$/i.test(line.slice(0, match.index))) continue;
        counts.citations += 1;
        const number = match[1];
        const section = sections.get(number);
        if (!section) {
          report(file, index + 1, `§${number} is not a heading of docs/decisions.md`);
          continue;
        }
        for (const { code } of spans(line)) {
          if (headingTerms.has(code) && !section.body.includes(code)) {
            report(
              file,
              index + 1,
              `§${number} ("${section.heading.replace(/^#+ /, '')}") says nothing of \`${code}\`; which section does?`,
            );
          }
        }
      }
    });
}

for (const doc of files.filter((f) => f === 'README.md' || /^docs\/[^/]+\.md$/.test(f))) {
  checkDoc(doc);
  checkCitations(doc, /decisions(?:\.md)?\]?(?:\([^)]*\))? ?§(\d+(?:\.\d+)?)/g);
}
const SOURCE = /^(packages\/[^/]+\/src|e2e|scripts|bench)\/.*\.(ts|tsx|mts|mjs|cjs)$/;
for (const file of files.filter((f) => SOURCE.test(f))) checkCitations(file, /§ ?(\d+(?:\.\d+)?)/g);

/** The anchors GitHub gives the headings of a Markdown file (outside fenced blocks). */
const anchorsOf = (doc) => {
  const seen = new Map();
  let fenced = false;
  for (const line of read(doc).split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    seen.set(slug, (seen.get(slug) ?? -1) + 1);
    if (seen.get(slug) > 0) seen.set(`${slug}-${seen.get(slug)}`, 0);
  }
  return new Set(seen.keys());
};
for (const file of files.filter((f) => SOURCE.test(f))) {
  read(file)
    .split('\n')
    .forEach((line, index) => {
      for (const [, doc, anchor] of line.matchAll(/\b(docs\/[\w.-]+\.md)#([\w-]+)/g)) {
        counts.anchors += 1;
        if (!files.includes(doc)) report(file, index + 1, `${doc} does not exist`);
        else if (!anchorsOf(doc).has(anchor))
          report(file, index + 1, `${doc} has no heading whose anchor is #${anchor}`);
      }
    });
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(
    `\n${problems.length} problem${problems.length === 1 ? '' : 's'} in the docs or decision citations (rules: scripts/check-docs.mjs)`,
  );
  process.exitCode = 1;
} else {
  console.log(
    `docs check: ${counts.paths} paths, ${counts.names} names, ${counts.citations} citations, ${counts.anchors} anchors, all found`,
  );
}
