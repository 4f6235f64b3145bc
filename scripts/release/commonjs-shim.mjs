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
