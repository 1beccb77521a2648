/** The table page of a log read page by page from the server (paging.ts): its rows, the total, and the next fetch when due. */
import { useEffect, useMemo } from 'react';
import type { Page } from '../../api/types';
import { cachedItems, pageSlice, serverTotal, shouldLoadMore } from './paging';

/** What the page needs of an RTK Query infinite query result. */
export interface ServerPages<T> {
  data?: { pages: Page<T>[] };
  hasNextPage: boolean;
  isFetching: boolean;
  isError: boolean;
  fetchNextPage: () => unknown;
}

export function useCachedPages<T extends { id: number }>(
  result: ServerPages<T>,
  page: number,
  pageSize: number,
): { rows: T[]; total: number } {
  const pages = result.data?.pages;
  const items = useMemo(() => cachedItems(pages ?? []), [pages]);
  const total = Math.max(serverTotal(pages ?? []), items.length);
  const due = shouldLoadMore(page, pageSize, items.length, total);
  const { hasNextPage, isFetching, isError, fetchNextPage } = result;
  useEffect(() => {
    // A failed fetch is not retried in a loop: Refresh fetches again.
    if (due && hasNextPage && !isFetching && !isError) void fetchNextPage();
  }, [due, hasNextPage, isFetching, isError, fetchNextPage]);
  return { rows: pageSlice(items, page, pageSize), total };
}
