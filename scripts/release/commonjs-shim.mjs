// Bundled CommonJS packages (commander, express, pg, pino, piscina...) use require, __dirname and
// __filename, which an ES module lacks; the banner gives each ES-module output file its own.
// Used by the release bundle (bundle.mjs); the daemon's own build makes CommonJS files (decisions §20.39).
export const commonJsShim = [
  "import { createRequire as __taplineCreateRequire } from 'node:module';",
  "import { fileURLToPath as __taplineFileURLToPath } from 'node:url';",
  "import { dirname as __taplineDirname } from 'node:path';",
  'const require = __taplineCreateRequire(import.meta.url);',
  'const __filename = __taplineFileURLToPath(import.meta.url);',
  'const __dirname = __taplineDirname(__filename);',
].join('\n');

// The other way round: a CommonJS bundle of ES-module code has no import.meta.url. Defined as the
// file's URL as an ES module has it (`pathToFileURL`, every character a URL escapes escaped: tsup's
// own shim made it `file:${__filename}`, which cut a path at a `#`), by a banner that says
// 'use strict' first, since esbuild's own directive after it would no longer be the file's first
// statement (decisions §20.39). Used by the daemon's build (tsup.config.ts) and the release's
// CommonJS bundle (bundle.mjs).
export const IMPORT_META_URL = '__taplineImportMetaUrl';
export const fileUrlBanner = `'use strict';const ${IMPORT_META_URL} = require('node:url').pathToFileURL(__filename).href;`;
