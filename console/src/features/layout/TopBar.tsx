import { GlobalOutlined, MenuOutlined, MoonOutlined, SunOutlined, UserOutlined } from '@ant-design/icons';
import { Button, Dropdown, Flex, Layout, Space, Tag, Typography, theme as antdTheme } from 'antd';
import { useIntl } from 'react-intl';
import { Link, useNavigate } from 'react-router';
import { useAppDispatch, useAppSelector, useCurrentUser } from '../../app/hooks';
import { useSignOut } from '../../app/useSignOut';
import { localeChanged, themeToggled } from '../../app/uiSlice';
import { LOCALES } from '../../i18n/locales';
import { toast } from '../../shared/feedback';
import { useLogoutMutation } from '../auth/api';
import { useStatus } from '../status/useStatus';
import { nav as m } from './messages';
import { NavLinks } from './NavLinks';

const LANGUAGE_NAMES: Record<(typeof LOCALES)[number], string> = { 'zh-CN': '中文', en: 'English' };

function UserMenu() {
  const intl = useIntl();
  const user = useCurrentUser();
  const navigate = useNavigate();
  const signOut = useSignOut();
  const [logout] = useLogoutMutation();
  if (!user) return null;
  const onClick = async ({ key }: { key: string }) => {
    if (key === 'personal') navigate('/personal');
    if (key === 'logout') {
      await logout()
        .unwrap()
        .catch(() => undefined);
      await signOut();
      toast.success(intl.formatMessage(m.loggedOut));
    }
  };
  return (
    <Dropdown
      menu={{
        onClick,
        items: [
          { key: 'personal', label: intl.formatMessage(m.personal) },
          { key: 'logout', label: intl.formatMessage(m.logout), danger: true },
        ],
      }}
    >
      <Button type="text" icon={<UserOutlined />} data-testid="user-menu">
        {user.display_name || user.username}
      </Button>
    </Dropdown>
  );
}

function GuestLinks({ registerHidden }: { registerHidden: boolean }) {
  const intl = useIntl();
  return (
    <Space size={4}>
      <Link to="/login">
        <Button type="primary">{intl.formatMessage(m.login)}</Button>
      </Link>
      {!registerHidden && (
        <Link to="/register">
          <Button>{intl.formatMessage(m.register)}</Button>
        </Link>
      )}
    </Space>
  );
}

export function TopBar({ isMobile, onMenu }: { isMobile: boolean; onMenu?: () => void }) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const theme = useAppSelector((s) => s.ui.theme);
  const locale = useAppSelector((s) => s.ui.locale);
  const user = useCurrentUser();
  const { status } = useStatus();
  const { token } = antdTheme.useToken();

  return (
    <Layout.Header
      style={{
        display: 'flex',
        alignItems: 'center',
        gap: 12,
        padding: '0 12px',
        height: 56,
        lineHeight: '56px',
        background: token.colorBgContainer,
        borderBottom: `1px solid ${token.colorBorderSecondary}`,
      }}
      data-testid="top-bar"
    >
      {onMenu && <Button type="text" icon={<MenuOutlined />} aria-label={intl.formatMessage(m.menu)} onClick={onMenu} />}
      <Link to="/" style={{ display: 'flex', alignItems: 'center', gap: 8 }}>
        {status.logo && <img src={status.logo} alt="" style={{ height: 28 }} />}
        <Typography.Text strong style={{ color: 'inherit', whiteSpace: 'nowrap' }}>
          {status.system_name || 'AI Gateway'}
        </Typography.Text>
      </Link>
      {status.self_use_mode_enabled && <Tag color="purple">{intl.formatMessage(m.selfUse)}</Tag>}
      {status.demo_site_enabled && <Tag color="gold">{intl.formatMessage(m.demo)}</Tag>}
      {!isMobile && <NavLinks />}
      <Flex gap={4} align="center" style={{ marginInlineStart: 'auto' }}>
        <Button
          type="text"
          aria-label={intl.formatMessage(theme === 'dark' ? m.themeLight : m.themeDark)}
          icon={theme === 'dark' ? <SunOutlined /> : <MoonOutlined />}
          onClick={() => dispatch(themeToggled())}
          data-testid="theme-toggle"
        />
        <Dropdown
          menu={{
            selectedKeys: [locale],
            onClick: ({ key }) => dispatch(localeChanged(key as (typeof LOCALES)[number])),
            items: LOCALES.map((l) => ({ key: l, label: <span data-testid={`lang-${l}`}>{LANGUAGE_NAMES[l]}</span> })),
          }}
        >
          <Button type="text" icon={<GlobalOutlined />} aria-label={intl.formatMessage(m.language)} data-testid="language-menu">
            {!isMobile && LANGUAGE_NAMES[locale]}
          </Button>
        </Dropdown>
        {user ? <UserMenu /> : <GuestLinks registerHidden={Boolean(status.self_use_mode_enabled)} />}
      </Flex>
    </Layout.Header>
  );
}
