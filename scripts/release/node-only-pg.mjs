import { readFile } from 'node:fs/promises';

/**
 * An esbuild plugin for the daemon's bundles: node-postgres asks at load whether it runs in a
 * Cloudflare Worker by building a `Response`, which makes Node 20 load its whole fetch
 * implementation (undici): 30 ms and more of every start, SQLite or not, for an answer that is
 * always no in taplined. The bundled copy skips that probe; everything else in pg is as published.
 */
export const nodeOnlyPg = {
  name: 'node-only-pg',
  setup(build) {
    build.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const probe = "typeof Response === 'function'";
      // A pg release that changed the probe is bundled as published, slower but correct.
      return { contents: source.replace(probe, 'false'), loader: 'js' };
    });
  },
};
