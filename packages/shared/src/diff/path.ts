/** A path into a JSON value as a reader writes it: `response.body.items[3].price`, `headers["x-id"]`. */
export function formatPath(segments: readonly (string | number)[]): string {
  return segments
    .map((segment, i) => {
      if (typeof segment === 'number') return `[${segment}]`;
      if (/^[A-Za-z_$][\w$]*$/.test(segment)) return i === 0 ? segment : `.${segment}`;
      return `[${JSON.stringify(segment)}]`;
    })
    .join('');
}
