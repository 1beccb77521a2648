import { describe, expect, it } from 'vitest';
import { allDescriptors, catalogue, zhCN } from './catalog';

describe('message catalogues', () => {
  const en = catalogue('en');
  const zh = zhCN;

  it('declares namespaced ids with an English default and a description', () => {
    const bad = [...allDescriptors().values()].filter(
      (d) => !/^[a-z][a-zA-Z0-9]*(\.[a-zA-Z0-9]+)+$/.test(String(d.id)) || !d.defaultMessage || !d.description,
    );
    expect(bad.map((d) => d.id)).toEqual([]);
  });

  it('has a Chinese entry for every English one', () => {
    expect(
      Object.keys(en)
        .filter((k) => !(k in zh))
        .sort(),
    ).toEqual([]);
  });

  it('has no Chinese entry without an English one', () => {
    expect(
      Object.keys(zh)
        .filter((k) => !(k in en))
        .sort(),
    ).toEqual([]);
  });

  it('keeps the same placeholders in both languages', () => {
    const names = (s: string) => [...s.matchAll(/\{(\w+)/g)].map((x) => x[1]).sort();
    const differ = Object.keys(en).filter((k) => k in zh && names(en[k]).join() !== names(zh[k]).join());
    expect(differ).toEqual([]);
  });
});
