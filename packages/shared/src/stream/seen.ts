/**
 * The ids a follower delivered lately, so a repeat is recognised by its id. Ids made by several
 * daemons are not in the stream's order (docs/decisions.md §9.7), so no comparison of ids can
 * tell a repeat from an entry that committed late. Bounded: past `limit` the oldest is forgotten.
 */
export interface SeenIds {
  /** False when `id` was seen already; otherwise remembers it. */
  add(id: string): boolean;
}

export function createSeenIds(limit: number, shown: Iterable<string> = []): SeenIds {
  // A Set iterates in insertion order: its first member is the oldest.
  const ids = new Set<string>();
  const add = (id: string) => {
    if (ids.has(id)) return false;
    ids.add(id);
    if (ids.size > limit) {
      const oldest = ids.values().next();
      if (!oldest.done) ids.delete(oldest.value);
    }
    return true;
  };
  for (const id of shown) add(id.toLowerCase());
  return { add: (id) => add(id.toLowerCase()) };
}
