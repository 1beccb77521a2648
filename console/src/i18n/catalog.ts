/**
 * Message catalogues. English comes from the `defaultMessage` of every `messages.ts`
 * (collected here); Chinese from locales/zh-CN.json merged with each feature's own
 * `zh-CN.json`. catalog.test.ts checks that both catalogues hold exactly the same ids.
 */
import type { MessageDescriptor } from 'react-intl';
import zhShared from './locales/zh-CN.json';
import type { Locale } from './locales';

type Descriptors = Record<string, MessageDescriptor>;

const featureZh = import.meta.glob<Record<string, string>>('../features/*/zh-CN.json', { eager: true, import: 'default' });

/** The Chinese catalogue: the shared file plus every feature's file. */
export const zhCN: Record<string, string> = Object.assign({}, zhShared, ...Object.values(featureZh));

const modules = import.meta.glob<Record<string, Descriptors>>('../**/messages.ts', { eager: true });

/** Every message descriptor declared in the console, by id. */
export function allDescriptors(): Map<string, MessageDescriptor> {
  const out = new Map<string, MessageDescriptor>();
  for (const mod of Object.values(modules)) {
    for (const group of Object.values(mod)) {
      for (const d of Object.values(group)) {
        if (d && typeof d === 'object' && typeof d.id === 'string') out.set(d.id, d);
      }
    }
  }
  return out;
}

function englishCatalogue(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [id, d] of allDescriptors()) out[id] = String(d.defaultMessage ?? id);
  return out;
}

let en: Record<string, string> | undefined;

export function catalogue(locale: Locale): Record<string, string> {
  if (locale === 'zh-CN') return zhCN;
  en ??= englishCatalogue();
  return en;
}
