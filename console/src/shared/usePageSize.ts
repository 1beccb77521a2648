import { useCallback, useState } from 'react';
import { DEFAULT_PAGE_SIZE, PAGE_SIZE_OPTIONS } from './constants';
import { readString, STORAGE_KEY, writeString } from './storage';

/** The stored page size (key `page-size`), one of 10, 20, 50, 100. */
export function storedPageSize(): number {
  const n = Number(readString(STORAGE_KEY.pageSize));
  return (PAGE_SIZE_OPTIONS as readonly number[]).includes(n) ? n : DEFAULT_PAGE_SIZE;
}

export function usePageSize(): [number, (n: number) => void] {
  const [size, setSize] = useState(storedPageSize);
  const update = useCallback((n: number) => {
    writeString(STORAGE_KEY.pageSize, String(n));
    setSize(n);
  }, []);
  return [size, update];
}
