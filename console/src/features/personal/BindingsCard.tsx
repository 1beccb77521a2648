import { Button, Card, List, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import type { User } from '../../api/types';
import { toast } from '../../shared/feedback';
import { succeeded } from '../../shared/succeeded';
import { useOAuthRedirect } from '../auth/useOAuthRedirect';
import { WeChatCodeModal } from '../auth/WeChatCodeModal';
import { useStatus } from '../status/useStatus';
import { useBindWeChatMutation, type BindingProvider } from './api';
import { BindEmailModal } from './BindEmailModal';
import { bindings as m } from './messages';
import { TelegramBindModal } from './TelegramBindModal';
import { UnbindButton } from './UnbindButton';

interface Row {
  key: 'email' | BindingProvider;
  label: MessageDescriptor;
  value: string;
  /** The administrator allows binding it (a bound account is listed either way, to be unbound). */
  enabled: boolean;
  onBind: () => void;
}

/** Email can be changed once bound; a bound third-party account can only be unbound. */
const isEmail = (r: Row) => r.key === 'email';

export function BindingsCard({ user }: { user: User }) {
  const intl = useIntl();
  const { status } = useStatus();
  const [open, setOpen] = useState<'email' | 'wechat' | 'telegram' | null>(null);
  const close = () => setOpen(null);
  const redirect = useOAuthRedirect(status);
  const [bindWeChat, { isLoading: bindingWeChat }] = useBindWeChatMutation();
  const onWeChatCode = async (code: string) => {
    const ok = await succeeded(bindWeChat({ code }));
    if (ok) toast.success(intl.formatMessage(m.wechatBound));
    return ok;
  };
  const rows: Row[] = [
    { key: 'email', label: m.email, value: user.email, enabled: true, onBind: () => setOpen('email') },
    {
      key: 'wechat',
      label: m.wechat,
      value: user.wechat_id,
      enabled: Boolean(status.wechat_login),
      onBind: () => setOpen('wechat'),
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
      enabled: Boolean(status.telegram_oauth && status.telegram_bot_name),
      onBind: () => setOpen('telegram'),
    },
  ];
  const actions = (r: Row) => {
    const bound = Boolean(r.value);
    const out = [
      <Button
        key="bind"
        size="small"
        disabled={!r.enabled || (bound && !isEmail(r))}
        onClick={r.onBind}
        data-testid={`bind-${r.key}`}
      >
        {intl.formatMessage(bound && isEmail(r) ? m.change : m.bind)}
      </Button>,
    ];
    if (bound && r.key !== 'email') out.push(<UnbindButton key="unbind" provider={r.key} name={intl.formatMessage(r.label)} />);
    return out;
  };
  return (
    <Card title={intl.formatMessage(m.title)} data-testid="bindings-card">
      <List
        dataSource={rows.filter((r) => r.enabled || Boolean(r.value))}
        renderItem={(r) => (
          <List.Item actions={actions(r)} data-testid={`binding-${r.key}`}>
            <List.Item.Meta
              title={intl.formatMessage(r.label)}
              description={r.value ? <Typography.Text>{r.value}</Typography.Text> : <Tag>{intl.formatMessage(m.unbound)}</Tag>}
            />
          </List.Item>
        )}
      />
      {open === 'email' && <BindEmailModal onClose={close} />}
      {open === 'wechat' && (
        <WeChatCodeModal
          title={intl.formatMessage(m.wechatTitle)}
          qr={status.wechat_qrcode}
          loading={bindingWeChat}
          onClose={close}
          onSubmit={onWeChatCode}
        />
      )}
      {open === 'telegram' && status.telegram_bot_name && (
        <TelegramBindModal botName={status.telegram_bot_name} onClose={close} />
      )}
    </Card>
  );
}
