/**
 * `--exclude` path globs, matched against the request path without its query:
 * `*` matches within one segment, `**` across segments, `?` one character; `/static/**` also
 * matches `/static` itself. A pattern must begin with `/`.
 */
export function compileGlobs(patterns: readonly string[]): (pathname: string) => boolean {
  if (patterns.length === 0) return () => false;
  const regex = new RegExp(`^(?:${patterns.map(globSource).join('|')})$`);
  return (pathname) => regex.test(pathname);
}

function globSource(glob: string): string {
  if (!glob.startsWith('/')) throw new Error(`--exclude glob must begin with / (got "${glob}")`);
  let out = '';
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      // `/x/**` also matches `/x`: swallow the slash before a trailing `**` into the optional part.
      if (out.endsWith('/') && i + 2 === glob.length) out = `${out.slice(0, -1)}(?:/.*)?`;
      else out += '.*';
      i += 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return out;
}
