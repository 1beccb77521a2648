import { beforeEach, describe, expect, it } from 'vitest';
import { storedPageSize } from './usePageSize';

beforeEach(() => window.localStorage.clear());

describe('page size (spec 1 §9)', () => {
  it('defaults to 10 and accepts only 10, 20, 50, 100 from page-size', () => {
    expect(storedPageSize()).toBe(10);
    window.localStorage.setItem('page-size', '50');
    expect(storedPageSize()).toBe(50);
    window.localStorage.setItem('page-size', '30');
    expect(storedPageSize()).toBe(10);
    window.localStorage.setItem('page-size', 'abc');
    expect(storedPageSize()).toBe(10);
  });
});
