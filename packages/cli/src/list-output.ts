import { everyPage, rawItems, type Answer, type Page } from './api.js';
import type { CliContext } from './context.js';

export type PageAnswer<T> = Answer<Page<T>> & { readonly fresh: readonly T[]; readonly freshRaw: readonly unknown[] };

/**
 * Prints a list in the chosen mode. `--json` prints the API's answer unchanged (with `--all`,
 * one document holding every entry and the last page's `meta.total`); `--ndjson` prints each
 * entry as it arrives; a table gathers the rows and notes the paging on stderr.
 */
export async function printList<T>(
  ctx: CliContext,
  pages: AsyncIterable<PageAnswer<T>>,
  table: (rows: readonly T[]) => string[],
  noun: string,
): Promise<void> {
  const answers: PageAnswer<T>[] = [];
  for await (const answer of pages) {
    if (ctx.mode === 'ndjson') for (const item of answer.freshRaw) ctx.print(JSON.stringify(item));
    else answers.push(answer);
  }
  if (ctx.mode === 'ndjson') return;
  const last = answers[answers.length - 1];
  if (!last) return;
  if (ctx.mode === 'json') {
    if (answers.length === 1) return ctx.print(last.text.trimEnd());
    const data = answers.flatMap((a) => a.freshRaw);
    return ctx.print(
      JSON.stringify({
        data,
        meta: { total: last.data.meta.total, page: answers[0]?.data.meta.page ?? 1, limit: data.length },
      }),
    );
  }
  const rows = answers.flatMap((a) => a.fresh);
  const { total, page, limit } = last.data.meta;
  if (rows.length === 0) return ctx.note(total === 0 ? `no ${noun}` : `no ${noun} on page ${page} (${total} in all)`);
  for (const line of table(rows)) ctx.print(line);
  if (answers.length === 1 && total > rows.length) {
    const first = (page - 1) * limit + 1;
    const more = page * limit < total ? `; --page ${page + 1} for more, --all for every page` : '';
    ctx.note(ctx.colors.dim(`${first}-${first + rows.length - 1} of ${total} ${noun}${more}`));
  }
}

/** Yields one page, or every page from it on with `all`. */
export async function* pagesOf<T extends { readonly id: string }>(
  fetchPage: (page: number) => Promise<Answer<Page<T>>>,
  options: { page?: number; all?: boolean },
): AsyncGenerator<PageAnswer<T>> {
  if (options.all) {
    yield* everyPage(fetchPage, options.page ?? 1);
    return;
  }
  const answer = await fetchPage(options.page ?? 1);
  yield { ...answer, fresh: answer.data.data, freshRaw: rawItems(answer) };
}
