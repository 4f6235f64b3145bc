import { readFile } from 'node:fs/promises';

/**
 * esbuild plugins for the daemon's bundles that take work out of every start
 * (docs/performance.md, issue 30's cold start; decisions §20.3).
 */

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
