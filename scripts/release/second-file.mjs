import { fileURLToPath } from 'node:url';

/**
 * The daemon's bundle in two files (docs/decisions.md §20.27): taplined.cjs, which every start
 * reads, hashes and runs through its code cache, and taplined-schemas.cjs, which holds what no
 * start runs (zod, the contract's schemas, the OpenAPI document: packages/daemon/src/first-use.ts)
 * and is read by its first use. `SECOND_FILE` is the second file's entry; `secondFileSeam` is the
 * plugin for the build of the first, which gives every import of first-use.ts first-use-file.ts
 * instead, the module that reads the second file.
 */
export const SECOND_FILE = {
  'taplined-schemas': fileURLToPath(new URL('../../packages/daemon/src/first-use.ts', import.meta.url)),
};

const LOADER = fileURLToPath(new URL('../../packages/daemon/src/first-use-file.ts', import.meta.url));

export const secondFileSeam = {
  name: 'second-file-seam',
  setup(build) {
    build.onResolve({ filter: /[\\/]first-use\.js$/ }, (args) =>
      args.kind === 'entry-point' ? undefined : { path: LOADER },
    );
  },
};
