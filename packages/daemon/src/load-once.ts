/**
 * `load` run by the first call, its promise shared by the calls that come while it runs and kept
 * once it succeeds; a failure is given to those calls and forgotten, so the next call loads again.
 * For what is read on first use (the bundle's second file, docs/decisions.md §20.27): a file
 * missing for a moment while a package is replaced, or a read that fails for want of file
 * descriptors, fails the requests of that moment, not every request until a restart.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
