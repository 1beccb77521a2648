import { Button, Card, List, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import type { User } from '../../api/types';
import { toast } from '../../shared/feedback';
import { useOAuthRedirect } from '../auth/useOAuthRedirect';
import { WeChatCodeModal } from '../auth/WeChatCodeModal';
import { useStatus } from '../status/useStatus';
import { useBindWeChatMutation } from './api';
import { BindEmailModal } from './BindEmailModal';
import { bindings as m } from './messages';
import { succeeded } from '../../shared/succeeded';

interface Row {
  key: string;
  label: MessageDescriptor;
  value: string;
  enabled: boolean;
  onBind: () => void;
  /** Email can be changed once bound; the others are disabled once bound. */
  rebindable?: boolean;
}

export function BindingsCard({ user }: { user: User }) {
  const intl = useIntl();
  const { status } = useStatus();
  const [emailOpen, setEmailOpen] = useState(false);
  const [wechatOpen, setWechatOpen] = useState(false);
  const redirect = useOAuthRedirect(status);
  const [bindWeChat, { isLoading: bindingWeChat }] = useBindWeChatMutation();
  const onWeChatCode = async (code: string) => {
    const ok = await succeeded(bindWeChat({ code }));
    if (ok) toast.success(intl.formatMessage(m.wechatBound));
    return ok;
  };
  const rows: Row[] = [
    { key: 'email', label: m.email, value: user.email, enabled: true, onBind: () => setEmailOpen(true), rebindable: true },
    {
      key: 'wechat',
      label: m.wechat,
      value: user.wechat_id,
      enabled: Boolean(status.wechat_login),
      onBind: () => setWechatOpen(true),
    },
    {
      key: 'github',
      label: m.github,
      value: user.github_id,
      enabled: Boolean(status.github_oauth),
      onBind: () => redirect('github'),
    },
    { key: 'oidc', label: m.oidc, value: user.oidc_id, enabled: Boolean(status.oidc_enabled), onBind: () => redirect('oidc') },
    {
      key: 'linuxdo',
      label: m.linuxdo,
      value: user.linux_do_id,
      enabled: Boolean(status.linuxdo_oauth),
      onBind: () => redirect('linuxdo'),
    },
    {
      key: 'telegram',
      label: m.telegram,
      value: user.telegram_id,
      enabled: Boolean(status.telegram_oauth),
      onBind: () => window.location.assign('/api/oauth/telegram/bind'),
    },
  ];
  return (
    <Card title={intl.formatMessage(m.title)} data-testid="bindings-card">
      <List
        dataSource={rows.filter((r) => r.enabled)}
        renderItem={(r) => (
          <List.Item
            actions={[
              <Button key="bind" size="small" disabled={Boolean(r.value) && !r.rebindable} onClick={r.onBind}>
                {intl.formatMessage(r.value && r.rebindable ? m.change : m.bind)}
              </Button>,
            ]}
          >
            <List.Item.Meta
              title={intl.formatMessage(r.label)}
              description={r.value ? <Typography.Text>{r.value}</Typography.Text> : <Tag>{intl.formatMessage(m.unbound)}</Tag>}
            />
          </List.Item>
        )}
      />
      {emailOpen && <BindEmailModal onClose={() => setEmailOpen(false)} />}
      {wechatOpen && (
        <WeChatCodeModal
          title={intl.formatMessage(m.wechatTitle)}
          qr={status.wechat_qrcode}
          loading={bindingWeChat}
          onClose={() => setWechatOpen(false)}
          onSubmit={onWeChatCode}
        />
      )}
    </Card>
  );
}
