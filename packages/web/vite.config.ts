import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type Rollup } from 'vite';

/**
 * `vite build` writes dist/: index.html, the script chunks and the stylesheet under hashed names in
 * assets/, and web-ui.json, every file in one pack (text and gzip) that the daemon's build copies
 * beside its bundle and the single executable carries (packages/daemon/src/web-ui/assets.ts reads
 * it). Why each setting is as it is: docs/decisions.md §24.1.
 */

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/** The daemon's Content-Security-Policy allows only files of its own origin: no inline script or style. */
function refuseInline(html: string): void {
  const inline = /<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle=|\son[a-z]+=/i.exec(html);
  if (inline) throw new Error(`index.html holds inline code the page's CSP refuses: ${inline[0]}`);
}

/**
 * main.tsx loads the page's code (render.tsx: React, the contract) by a dynamic import, after it has
 * sent the first requests; a modulepreload link has the browser fetch and compile that chunk while
 * the first one runs rather than after (docs/decisions.md §24.10).
 */
function preloadPage(): Plugin {
  return {
    name: 'tapline-preload-page',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, context) {
        const chunks = Object.values(context.bundle ?? {}).filter(
          (item): item is Rollup.OutputChunk => item.type === 'chunk',
        );
        const page = chunks.find(
          (chunk) => chunk.isDynamicEntry && chunk.moduleIds.some((id) => id.endsWith('/src/render.tsx')),
        );
        if (!page) throw new Error('the web UI build has no chunk for src/render.tsx');
        // The first module is loaded by its own <script>; react-dom and zod (manualChunks below) are not.
        const entry = chunks.find((chunk) => chunk.isEntry);
        return [page.fileName, ...page.imports.filter((file) => file !== entry?.fileName)].map((file) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: true, href: `/${file}` },
          injectTo: 'head' as const,
        }));
      },
    },
  };
}

function webUiPack(): Plugin {
  return {
    name: 'tapline-web-ui-pack',
    apply: 'build',
    // Once every file is final: Vite's plugins still rewrite chunks (the preload list of each dynamic
    // import) in generateBundle.
    writeBundle(options, bundle) {
      const files = Object.values(bundle)
        .filter((item) => !item.fileName.endsWith('.map'))
        .map((item) => {
          const text = item.type === 'chunk' ? item.code : Buffer.from(item.source).toString('utf8');
          const type = TYPES[item.fileName.slice(item.fileName.lastIndexOf('.'))];
          if (!type) throw new Error(`the web UI build wrote ${item.fileName}, of a type the pack does not serve`);
          if (item.fileName === 'index.html') refuseInline(text);
          const path = item.fileName === 'index.html' ? '/' : `/${item.fileName}`;
          return { path, type, text, gzip: gzipSync(text, { level: 9 }).toString('base64') };
        })
        .sort((a, b) => a.path.localeCompare(b.path));
      if (!files.some((file) => file.path === '/')) throw new Error('the web UI build wrote no index.html');
      const version = createHash('sha256')
        .update(files.map((f) => f.text).join('\0'))
        .digest('hex')
        .slice(0, 16);
      writeFileSync(join(options.dir ?? 'dist', 'web-ui.json'), JSON.stringify({ version, files }));
      for (const file of files)
        this.info(
          `${file.path}  ${(Buffer.byteLength(file.text) / 1024).toFixed(1)} KiB, ${(Buffer.from(file.gzip, 'base64').length / 1024).toFixed(1)} KiB gzipped`,
        );
    },
  };
}

export default defineConfig({
  // The daemon serves the page at / and its files under /assets/ (packages/daemon/src/web-ui/routes.ts).
  base: '/',
  plugins: [react(), preloadPage(), webUiPack()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Browsers with native ES modules, import.meta and top-level await, as the esbuild build targeted.
    target: ['chrome111', 'firefox111', 'safari16'],
    // The polyfill is code for browsers without <link rel="modulepreload">; every target has it.
    modulePreload: { polyfill: false },
    // uPlot's stylesheet and the page's own in one file, linked from index.html, never a <style>.
    cssCodeSplit: false,
    sourcemap: false,
    reportCompressedSize: false,
    rollupOptions: {
      onwarn(warning, warn) {
        // zod's sources hold `@__PURE__` comments placed for esbuild, which Rollup drops with a
        // warning per comment: nothing in the output changes, so they are not shown.
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('/node_modules/')) return;
        warn(warning);
      },
      output: {
        // Compiled beside the page's chunk rather than inside it, and kept under the same names
        // (and in the browser's cache) across changes to Tapline's own code: decisions §24.12.
        manualChunks(id) {
          if (/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?(react-dom|scheduler)\//.test(id)) return 'react-dom';
          if (/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?zod\//.test(id)) return 'zod';
          return undefined;
        },
      },
    },
  },
});
