// The original source file of a position in a bundle, from its source map: enough of the format
// (base64 VLQ "mappings") for bench/profile.mjs to charge a bundled frame to the file it came
// from. Hand-written because it is 30 lines and the only consumer is a bench script.
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeSegment(text) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

/** `lookup(line, column)` (both 0-based, as CPU profiles give them) -> the source path, or undefined. */
export function sourceOf(map) {
  const lines = [];
  let sourceIndex = 0;
  for (const line of map.mappings.split(';')) {
    const segments = [];
    let column = 0;
    for (const segment of line.split(',').filter(Boolean)) {
      const [dColumn, dSource] = decodeSegment(segment);
      column += dColumn;
      if (dSource !== undefined) sourceIndex += dSource;
      segments.push([column, sourceIndex]);
    }
    lines.push(segments);
  }
  return (line, column) => {
    let found;
    for (const [start, source] of lines[line] ?? []) {
      if (start > column) break;
      found = source;
    }
    return found === undefined ? undefined : map.sources[found];
  };
}
