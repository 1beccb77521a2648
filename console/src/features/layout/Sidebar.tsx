import {
  ApiOutlined,
  BarChartOutlined,
  ClusterOutlined,
  FileTextOutlined,
  GiftOutlined,
  KeyOutlined,
  MessageOutlined,
  PictureOutlined,
  ScheduleOutlined,
  SettingOutlined,
  TeamOutlined,
  UserOutlined,
  WalletOutlined,
  ExperimentOutlined,
} from '@ant-design/icons';
import { Menu } from 'antd';
import type { ReactNode } from 'react';
import { useMemo } from 'react';
import { useIntl } from 'react-intl';
import { useLocation, useNavigate } from 'react-router';
import { useCurrentUser } from '../../app/hooks';
import { isAdmin } from '../../shared/constants';
import { readBool, readJson, STORAGE_KEY } from '../../shared/storage';
import { useStatus } from '../status/useStatus';
import { parseChats, sidebarSections } from './sidebarModel';

const ICONS: Record<string, ReactNode> = {
  '/playground': <ExperimentOutlined />,
  '/detail': <BarChartOutlined />,
  '/token': <KeyOutlined />,
  '/log': <FileTextOutlined />,
  '/midjourney': <PictureOutlined />,
  '/task': <ScheduleOutlined />,
  '/channel': <ApiOutlined />,
  '/gateway': <ClusterOutlined />,
  '/redemption': <GiftOutlined />,
  '/user': <TeamOutlined />,
  '/setting': <SettingOutlined />,
  '/topup': <WalletOutlined />,
  '/personal': <UserOutlined />,
};

/** The sidebar menu; entries come from sidebarModel. */
export function SidebarMenu({ onNavigate }: { onNavigate?: () => void }) {
  const intl = useIntl();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const user = useCurrentUser();
  const { status } = useStatus();

  const items = useMemo(() => {
    const sections = sidebarSections({
      isAdmin: isAdmin(user?.role),
      enableDataExport: status.enable_data_export ?? readBool(STORAGE_KEY.enableDataExport),
      enableDrawing: status.enable_drawing ?? readBool(STORAGE_KEY.enableDrawing),
      enableTask: status.enable_task ?? readBool(STORAGE_KEY.enableTask),
      chats: parseChats(status.chats ?? readJson(STORAGE_KEY.chats)),
    });
    const text = (l: string | { id?: string }) => (typeof l === 'string' ? l : intl.formatMessage(l));
    return sections.map((s) => ({
      type: 'group' as const,
      key: s.key,
      label: text(s.label),
      children: s.entries.map((e) => ({ key: e.key, label: text(e.label), icon: ICONS[e.key] ?? <MessageOutlined /> })),
    }));
  }, [intl, user?.role, status]);

  const selected = '/' + (pathname.split('/')[1] ?? '');
  return (
    <Menu
      mode="inline"
      items={items}
      selectedKeys={[pathname, selected]}
      onClick={({ key }) => {
        navigate(key);
        onNavigate?.();
      }}
      style={{ borderInlineEnd: 'none' }}
      data-testid="sidebar-menu"
    />
  );
}
