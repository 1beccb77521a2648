import { Button, Drawer, Layout, Spin, theme as antdTheme } from 'antd';
import { MenuFoldOutlined, MenuUnfoldOutlined } from '@ant-design/icons';
import { Suspense, useEffect, useState } from 'react';
import { useIntl } from 'react-intl';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useAppDispatch, useAppSelector, useCurrentUser } from '../../app/hooks';
import { sidebarToggled } from '../../app/uiSlice';
import { useIsMobile } from '../../shared/useIsMobile';
import { StatusBanner } from '../status/StatusBanner';
import { useStatus } from '../status/useStatus';
import { AppFooter } from './Footer';
import { sidebar as m } from './messages';
import { NavLinks } from './NavLinks';
import { SidebarMenu } from './Sidebar';
import { sidebarVisible } from './sidebarModel';
import { TopBar } from './TopBar';

/** Sends every page but /setup to /setup until the installation is set up (spec 3 §2.1). */
function useSetupRedirect(pathname: string): boolean {
  const { status } = useStatus();
  return status.setup === false && pathname !== '/setup';
}

export function AppLayout() {
  const intl = useIntl();
  const { pathname } = useLocation();
  const isMobile = useIsMobile();
  const dispatch = useAppDispatch();
  const collapsed = useAppSelector((s) => s.ui.sidebarCollapsed);
  const user = useCurrentUser();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const { token } = antdTheme.useToken();
  const mustSetup = useSetupRedirect(pathname);
  const { status } = useStatus();
  useEffect(() => {
    if (status.system_name) document.title = status.system_name;
  }, [status.system_name]);
  if (mustSetup) return <Navigate to="/setup" replace />;

  const showSidebar = Boolean(user) && sidebarVisible(pathname);
  return (
    <Layout style={{ minHeight: '100vh' }}>
      <StatusBanner />
      <TopBar isMobile={isMobile} onMenu={isMobile ? () => setDrawerOpen(true) : undefined} />
      <Layout>
        {showSidebar && !isMobile && (
          <Layout.Sider
            collapsible
            collapsed={collapsed}
            trigger={null}
            width={220}
            style={{ background: token.colorBgContainer }}
            data-testid="sidebar"
          >
            <SidebarMenu />
            <Button
              type="text"
              block
              icon={collapsed ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
              aria-label={intl.formatMessage(collapsed ? m.expand : m.collapse)}
              onClick={() => dispatch(sidebarToggled())}
              data-testid="sidebar-toggle"
            />
          </Layout.Sider>
        )}
        {isMobile && (
          <Drawer placement="left" open={drawerOpen} onClose={() => setDrawerOpen(false)} size={260}>
            <NavLinks vertical onNavigate={() => setDrawerOpen(false)} />
            {showSidebar && <SidebarMenu onNavigate={() => setDrawerOpen(false)} />}
          </Drawer>
        )}
        <Layout.Content style={{ padding: isMobile ? 8 : 24 }}>
          <Suspense fallback={<Spin style={{ display: 'block', margin: '64px auto' }} />}>
            <Outlet />
          </Suspense>
        </Layout.Content>
      </Layout>
      <AppFooter />
    </Layout>
  );
}
