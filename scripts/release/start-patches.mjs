import { readFile } from 'node:fs/promises';

/**
 * esbuild plugins for the daemon's bundles that take work out of every start without changing
 * what the patched packages do (docs/performance.md, issue 30's cold start; decisions §20.3).
 * Each replaces an exact piece of the published text; a release of the package that changed it is
 * bundled as published, slower but correct.
 */

/** `onLoad` for one file, replacing `from` by `to` in it. */
function patch(name, filter, from, to) {
  return {
    name,
    setup(build) {
      build.onLoad({ filter }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        return { contents: source.replace(from, to), loader: 'js' };
      });
    },
  };
}

/**
 * depd: `depd(namespace)` (which express, router and http-errors call at load) keeps only the
 * calling file's name, but read it through the call site's line and column too. The first line
 * number asked of a script makes V8 find the line ends of all of it, the whole 2.5 MB bundle: 5 to
 * 15 ms of every start. The file name alone, as depd computes it, needs no line.
 */
export const depdWithoutLines = patch(
  'depd-without-lines',
  /[\\/]depd[\\/]index\.js$/,
  '  var stack = getStack()\n  var site = callSiteLocation(stack[1])\n  var file = site[0]\n',
  "  var stack = getStack()\n  var file = stack[1].getFileName() || '<anonymous>'\n  if (stack[1].isEval()) file = stack[1].getEvalOrigin() + ', ' + file\n",
);

/**
 * mime-types: its extension and type maps, built from all of mime-db's 2,500 types at load
 * (6 to 7 ms of every start), are built by the first read of either instead. A start's answers do
 * not read them: `contentType` and `charset` for a full type read mime-db itself. Once built they
 * are the same plain properties as published. Only the names the module defines are made lazy
 * (mime-types 2 has no `_extensionConflicts`).
 */
export const lazyMimeMaps = patch(
  'lazy-mime-maps',
  /[\\/]mime-types[\\/]index\.js$/,
  '// Populate the extensions/types maps\npopulateMaps(exports.extensions, exports.types)\n',
  `// Populate the extensions/types maps, at their first use
;(function lazily (names) {
  function build () {
    names.forEach(function (name) {
      Object.defineProperty(exports, name, { value: initial[name], writable: true, enumerable: true, configurable: true })
    })
    populateMaps(exports.extensions, exports.types)
  }
  var initial = {}
  names.forEach(function (name) {
    initial[name] = exports[name]
    Object.defineProperty(exports, name, {
      get: function () { build(); return exports[name] },
      set: function (value) { build(); exports[name] = value },
      enumerable: true,
      configurable: true
    })
  })
})(['extensions', 'types', '_extensionConflicts'].filter(function (name) { return name in exports }))
`,
);

/**
 * router (express's): every layer's path was compiled by path-to-regexp as it was mounted: each
 * route's, each mounted middleware's and the `/` of each handler of a route, 237 compiles for the
 * test harness's app (about 5 ms of CPU). Each is compiled by its first match instead, into the
 * same matcher; `matchers` keeps its length and order. A path that cannot compile would no longer
 * stop the start: every request that reaches its layer (a route mounted after it too) would fail
 * with its TypeError, a 500, at every match. The daemon's paths are constants of the contract,
 * each compiled by e2e/start-patches.test.ts, and mounted unpatched by every test of the app.
 */
export const lazyRouteMatchers = patch(
  'lazy-route-matchers',
  /[\\/]router[\\/]lib[\\/]layer\.js$/,
  '  this.matchers = Array.isArray(this.rawPath) ? this.rawPath.map(matcher) : [matcher(path)]\n',
  `  // Each path compiled by its first match
  this.matchers = (Array.isArray(this.rawPath) ? this.rawPath : [path]).map(function (_path) {
    let compiled
    return function lazyMatcher (p) {
      return (compiled || (compiled = matcher(_path)))(p)
    }
  })
`,
);

/**
 * sonic-boom (pino's destination) loaded Node's \`assert\` at load for one check in \`destroy\`; the
 * first \`assert\` module a process loads costs it about 4 ms of CPU. Loaded by that check instead.
 */
export const lazySonicBoomAssert = patch(
  'lazy-sonic-boom-assert',
  /[\\/]sonic-boom[\\/]index\.js$/,
  "const assert = require('assert')\n",
  "function assert (value, message) { require('assert')(value, message) }\n",
);

/**
 * pino: its transports (thread-stream, which loads \`assert\` and a worker's machinery) were loaded
 * with pino; the daemon logs to a file descriptor and never starts one. \`pino.transport\` and the
 * \`transport\` option load them on first use, the same function as published.
 */
export const lazyPinoTransport = [
  patch(
    'lazy-pino-transport-option',
    /[\\/]pino[\\/]lib[\\/]tools\.js$/,
    "const transport = require('./transport')\n",
    "function transport (opts) { return require('./transport')(opts) }\n",
  ),
  patch(
    'lazy-pino-transport-export',
    /[\\/]pino[\\/]pino\.js$/,
    "module.exports.transport = require('./lib/transport')\n",
    `Object.defineProperty(module.exports, 'transport', {
  get: function () { return (module.exports.transport = require('./lib/transport')) },
  set: function (value) { Object.defineProperty(module.exports, 'transport', { value: value, writable: true, enumerable: true, configurable: true }) },
  enumerable: true,
  configurable: true
})
`,
  ),
];

/**
 * express-rate-limit: it imported ip-address at load and made an address with it, and ip-address
 * makes a dozen more of its own at load (about 2 ms of every start); only its key generator reads
 * them, with an IPv6 client's first request. Both are loaded by the generator's first IPv6
 * address instead, the same classes and the same subnet as published.
 */
export const lazyIpAddress = patch(
  'lazy-ip-address',
  /[\\/]express-rate-limit[\\/]dist[\\/]index\.mjs$/,
  'import { Address6 } from "ip-address";\nvar ipv4CompatibleSubnet = new Address6("::/96");\n',
  `var ipAddress;
var ipv4CompatibleSubnet;
function Address6(address) {
  if (!ipAddress) {
    ipAddress = require("ip-address");
    ipv4CompatibleSubnet = new ipAddress.Address6("::/96");
  }
  return new ipAddress.Address6(address);
}
`,
);

/**
 * Fails the build when a bundle is not pure ASCII. V8 keeps a script with a single character
 * beyond Latin-1 as a two-byte string, and Node decodes a non-ASCII file byte by byte: reading the
 * 2.5 MB bundle took 11 to 22 ms instead of 2. esbuild escapes such characters in strings but not
 * in regular expressions or tagged templates; write those as `\u` escapes.
 */
export const asciiOnly = {
  name: 'ascii-only',
  setup(build) {
    build.onEnd(async (result) => {
      if (result.errors.length > 0) return;
      // tsup writes the files after the build (write: false); esbuild alone, before onEnd.
      const outputs = result.outputFiles
        ? result.outputFiles.map((f) => [f.path, () => f.text])
        : Object.keys(result.metafile?.outputs ?? {}).map((path) => [path, () => readFile(path, 'utf8')]);
      for (const [file, read] of outputs.filter(([path]) => /\.c?js$/.test(path))) {
        const text = await read();
        let at = 0;
        while (at < text.length && text.charCodeAt(at) < 0x80) at++;
        if (at < text.length) {
          const context = JSON.stringify(text.slice(Math.max(0, at - 40), at + 10));
          throw new Error(`${file} is not ASCII at ${at}: ${context}; escape the character in the source`);
        }
      }
    });
  },
};

/** Every patch above, in the order the daemon's builds (tsup.config.ts, bundle.mjs) apply them. */
export const startPatches = [
  depdWithoutLines,
  lazyMimeMaps,
  lazyRouteMatchers,
  lazySonicBoomAssert,
  ...lazyPinoTransport,
  lazyIpAddress,
];
