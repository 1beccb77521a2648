import { App as AntApp, ConfigProvider, theme } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { useEffect, useMemo } from 'react';
import { RawIntlProvider } from 'react-intl';
import { Provider } from 'react-redux';
import { createBrowserRouter, RouterProvider, type RouteObject } from 'react-router';
import { setIntlLocale } from '../i18n/intl';
import { setMessageInstance } from '../shared/feedback';
import { useAppSelector } from './hooks';
import { setNavigator } from './navigation';
import { routeObjects } from './routes';
import type { AppStore } from './store';

/** Hands the antd App's message API to non-React code. */
function FeedbackBridge() {
  const { message } = AntApp.useApp();
  useEffect(() => {
    setMessageInstance(message);
    return () => setMessageInstance(undefined);
  }, [message]);
  return null;
}

function Themed({ router }: { router: ReturnType<typeof createBrowserRouter> }) {
  const locale = useAppSelector((s) => s.ui.locale);
  const mode = useAppSelector((s) => s.ui.theme);
  const intl = useMemo(() => setIntlLocale(locale), [locale]);
  useEffect(() => {
    dayjs.locale(locale === 'zh-CN' ? 'zh-cn' : 'en');
    document.documentElement.lang = locale;
  }, [locale]);
  return (
    <RawIntlProvider value={intl}>
      <ConfigProvider
        locale={locale === 'zh-CN' ? zhCN : enUS}
        theme={{ algorithm: mode === 'dark' ? theme.darkAlgorithm : theme.defaultAlgorithm }}
      >
        <AntApp>
          <FeedbackBridge />
          <RouterProvider router={router} />
        </AntApp>
      </ConfigProvider>
    </RawIntlProvider>
  );
}

const DEFAULT_ROUTES = routeObjects();

export function App({ store, routes = DEFAULT_ROUTES }: { store: AppStore; routes?: RouteObject[] }) {
  const router = useMemo(() => {
    const r = createBrowserRouter(routes);
    setNavigator((to, opts) => void r.navigate(to, opts));
    return r;
  }, [routes]);
  return (
    <Provider store={store}>
      <Themed router={router} />
    </Provider>
  );
}
