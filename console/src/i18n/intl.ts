/** One react-intl instance shared by React (IntlProvider) and non-React code (toasts, API errors). */
import { createIntl, createIntlCache, type IntlShape } from 'react-intl';
import { catalogue } from './catalog';
import { DEFAULT_LOCALE, type Locale } from './locales';

const cache = createIntlCache();
let current: IntlShape = build(DEFAULT_LOCALE);

function build(locale: Locale): IntlShape {
  return createIntl({ locale, defaultLocale: 'en', messages: catalogue(locale) }, cache);
}

export function setIntlLocale(locale: Locale): IntlShape {
  if (current.locale !== locale) current = build(locale);
  return current;
}

export function getIntl(): IntlShape {
  return current;
}
