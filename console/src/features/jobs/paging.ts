/**
 * Client paging over server pages (spec 3 §4, §9): the table pages the records fetched so far
 * by the stored page size; a further server page is fetched only when the table reaches the
 * last page of what is cached and the server holds more.
 */
import type { Page } from '../../api/types';

/** The records of the pages fetched so far, in order, each id once (new records may shift later pages). */
export function cachedItems<T extends { id: number }>(pages: readonly Page<T>[]): T[] {
  const seen = new Set<number>();
  const out: T[] = [];
  for (const p of pages) {
    for (const item of p.items) {
      if (!seen.has(item.id)) {
        seen.add(item.id);
        out.push(item);
      }
    }
  }
  return out;
}

/** The server's count of matching records, as its latest page says. */
export function serverTotal(pages: readonly Page<unknown>[]): number {
  return pages.length === 0 ? 0 : pages[pages.length - 1].total;
}

/** The server page after `pages`, or undefined when every record is fetched (or the last page was empty). */
export function nextServerPage(pages: readonly Page<unknown>[]): number | undefined {
  if (pages.length === 0) return 1;
  const last = pages[pages.length - 1];
  const fetched = pages.reduce((n, p) => n + p.items.length, 0);
  return last.items.length > 0 && fetched < last.total ? pages.length + 1 : undefined;
}

/** The last table page the cached records fill (at least 1). */
export function lastCachedPage(cached: number, pageSize: number): number {
  return Math.max(1, Math.ceil(cached / pageSize));
}

/** Whether to fetch the next server page: the table is on (or past) the last cached page and the server has more. */
export function shouldLoadMore(page: number, pageSize: number, cached: number, total: number): boolean {
  return cached < total && page >= lastCachedPage(cached, pageSize);
}

/** The records of table page `page` (1-based). */
export function pageSlice<T>(items: readonly T[], page: number, pageSize: number): T[] {
  return items.slice((page - 1) * pageSize, page * pageSize);
}
