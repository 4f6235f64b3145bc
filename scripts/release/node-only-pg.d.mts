/** esbuild plugin: node-postgres without its Cloudflare Worker probe (node-only-pg.mjs). */
export declare const nodeOnlyPg: import('esbuild').Plugin;
