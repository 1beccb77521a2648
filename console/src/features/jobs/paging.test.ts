import { describe, expect, it } from 'vitest';
import type { Page } from '../../api/types';
import { cachedItems, lastCachedPage, nextServerPage, pageSlice, serverTotal, shouldLoadMore } from './paging';

const page = (ids: number[], total: number, p = 1): Page<{ id: number }> => ({
  items: ids.map((id) => ({ id })),
  page: p,
  page_size: 100,
  total,
});
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe('client pages over server pages (spec 3 §4, §9)', () => {
  it('fetches the next server page only when the table reaches the last cached page', () => {
    // 100 cached of 250, 10 per table page: pages 1–9 need nothing, page 10 is the last cached one.
    expect(shouldLoadMore(1, 10, 100, 250)).toBe(false);
    expect(shouldLoadMore(9, 10, 100, 250)).toBe(false);
    expect(shouldLoadMore(10, 10, 100, 250)).toBe(true);
    // A jump past the cache keeps fetching until it is covered.
    expect(shouldLoadMore(17, 10, 100, 250)).toBe(true);
    expect(shouldLoadMore(17, 10, 200, 250)).toBe(false);
    // Everything cached: never.
    expect(shouldLoadMore(25, 10, 250, 250)).toBe(false);
    expect(shouldLoadMore(1, 10, 0, 0)).toBe(false);
    // A page size of 100 reaches the end of one server page at once.
    expect(shouldLoadMore(1, 100, 100, 250)).toBe(true);
  });

  it('counts the last cached page', () => {
    expect(lastCachedPage(0, 10)).toBe(1);
    expect(lastCachedPage(100, 10)).toBe(10);
    expect(lastCachedPage(101, 10)).toBe(11);
    expect(lastCachedPage(100, 20)).toBe(5);
  });

  it('asks the server for the next page while it holds more', () => {
    expect(nextServerPage([])).toBe(1);
    expect(nextServerPage([page(range(1, 100), 250)])).toBe(2);
    expect(nextServerPage([page(range(1, 100), 250), page(range(101, 100), 250, 2)])).toBe(3);
    expect(
      nextServerPage([page(range(1, 100), 250), page(range(101, 100), 250, 2), page(range(201, 50), 250, 3)]),
    ).toBeUndefined();
    // Records deleted meanwhile: an empty page ends it.
    expect(nextServerPage([page(range(1, 100), 250), page([], 250, 2)])).toBeUndefined();
  });

  it('slices a table page out of the cached records, each record once', () => {
    const items = cachedItems([page(range(1, 100), 150), page([100, ...range(101, 49)], 150, 2)]);
    expect(items).toHaveLength(149);
    expect(pageSlice(items, 1, 10).map((i) => i.id)).toEqual(range(1, 10));
    expect(pageSlice(items, 15, 10).map((i) => i.id)).toEqual(range(141, 9));
    expect(pageSlice(items, 16, 10)).toEqual([]);
    expect(serverTotal([page([1], 5), page([2], 7, 2)])).toBe(7);
    expect(serverTotal([])).toBe(0);
  });
});
