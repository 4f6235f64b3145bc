#!/usr/bin/env node
/**
 * Builds the web UI into dist/: the script and stylesheet under content-hashed names in assets/,
 * index.html naming them, and web-ui.json, every file in one pack (text and gzip) that the
 * daemon's build copies beside its bundle and the single executable carries
 * (packages/daemon/src/web-ui/assets.ts reads it).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('.', import.meta.url));
const out = join(root, 'dist');
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });

const result = await build({
  entryPoints: { app: join(root, 'src/main.tsx') },
  bundle: true,
  platform: 'browser',
  format: 'esm',
  target: ['chrome111', 'firefox111', 'safari16'],
  minify: true,
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'error',
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
});

const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
const script = outputs.find((name) => name.endsWith('.js'));
const style = outputs.find((name) => name.endsWith('.css'));
if (!script || !style) throw new Error(`esbuild wrote ${outputs.join(', ')}: expected a script and a stylesheet`);

// No inline script or style: the daemon's Content-Security-Policy allows only files of its own origin.
const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Tapline</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/${style}">
<script type="module" src="/assets/${script}"></script>
</head>
<body>
<div id="root"></div>
<noscript>Tapline's web UI needs JavaScript.</noscript>
</body>
</html>
`;
writeFileSync(join(out, 'index.html'), html);

const TYPES = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};
const files = [['/', 'index.html'], ...outputs.map((name) => [`/assets/${name}`, join('assets', name)])].map(
  ([path, file]) => {
    const text = readFileSync(join(out, file), 'utf8');
    const type = TYPES[file.slice(file.lastIndexOf('.'))];
    return { path, type, text, gzip: gzipSync(text, { level: 9 }).toString('base64') };
  },
);
const version = createHash('sha256')
  .update(files.map((f) => f.text).join('\0'))
  .digest('hex')
  .slice(0, 16);
writeFileSync(join(out, 'web-ui.json'), JSON.stringify({ version, files }));
for (const file of files)
  process.stdout.write(
    `${file.path}  ${(Buffer.byteLength(file.text) / 1024).toFixed(1)} KiB, ${(Buffer.from(file.gzip, 'base64').length / 1024).toFixed(1)} KiB gzipped\n`,
  );
