import { Button, Card, Flex, Image, Input, List, Modal, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import type { StatusData, User } from '../../api/types';
import { toast } from '../../shared/feedback';
import { login as lm } from '../auth/messages';
import { useOauthStateMutation } from '../auth/api';
import { githubAuthorizeUrl, linuxdoAuthorizeUrl, oidcAuthorizeUrl } from '../auth/oauthUrls';
import { useStatus } from '../status/useStatus';
import { useBindWeChatMutation } from './api';
import { BindEmailModal } from './BindEmailModal';
import { bindings as m } from './messages';

interface Row {
  key: string;
  label: MessageDescriptor;
  value: string;
  enabled: boolean;
  onBind: () => void;
  /** Email can be changed once bound; the others are disabled once bound. */
  rebindable?: boolean;
}

function WeChatBindModal({ qr, open, onClose }: { qr?: string; open: boolean; onClose: () => void }) {
  const intl = useIntl();
  const [code, setCode] = useState('');
  const [bind, { isLoading }] = useBindWeChatMutation();
  const onOk = async () => {
    const ok = await bind({ code }).unwrap().then(() => true, () => false);
    if (ok) {
      toast.success(intl.formatMessage(m.wechatBound));
      onClose();
    }
  };
  return (
    <Modal open={open} onCancel={onClose} onOk={onOk} confirmLoading={isLoading} title={intl.formatMessage(m.wechatTitle)}>
      <Flex vertical align="center" gap={8}>
        {qr && <Image src={qr} width={200} preview={false} />}
        <Typography.Text type="secondary">{intl.formatMessage(lm.wechatHint)}</Typography.Text>
        <Input value={code} onChange={(e) => setCode(e.target.value)} placeholder={intl.formatMessage(lm.wechatCode)} />
      </Flex>
    </Modal>
  );
}

function useRedirectBind(status: Partial<StatusData>) {
  const [getState] = useOauthStateMutation();
  return async (provider: 'github' | 'oidc' | 'linuxdo') => {
    const state = await getState({}).unwrap().catch(() => undefined);
    if (typeof state !== 'string') return;
    const url =
      provider === 'github'
        ? githubAuthorizeUrl(status.github_client_id ?? '', state)
        : provider === 'oidc'
          ? oidcAuthorizeUrl(status.oidc_authorization_endpoint ?? '', status.oidc_client_id ?? '', state, window.location.origin)
          : linuxdoAuthorizeUrl(status.linuxdo_client_id ?? '', state);
    window.location.assign(url);
  };
}

export function BindingsCard({ user }: { user: User }) {
  const intl = useIntl();
  const { status } = useStatus();
  const [emailOpen, setEmailOpen] = useState(false);
  const [wechatOpen, setWechatOpen] = useState(false);
  const redirect = useRedirectBind(status);
  const rows: Row[] = [
    { key: 'email', label: m.email, value: user.email, enabled: true, onBind: () => setEmailOpen(true), rebindable: true },
    { key: 'wechat', label: m.wechat, value: user.wechat_id, enabled: Boolean(status.wechat_login), onBind: () => setWechatOpen(true) },
    { key: 'github', label: m.github, value: user.github_id, enabled: Boolean(status.github_oauth), onBind: () => redirect('github') },
    { key: 'oidc', label: m.oidc, value: user.oidc_id, enabled: Boolean(status.oidc_enabled), onBind: () => redirect('oidc') },
    { key: 'linuxdo', label: m.linuxdo, value: user.linux_do_id, enabled: Boolean(status.linuxdo_oauth), onBind: () => redirect('linuxdo') },
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
      {emailOpen && <BindEmailModal open={emailOpen} onClose={() => setEmailOpen(false)} />}
      {wechatOpen && <WeChatBindModal qr={status.wechat_qrcode} open={wechatOpen} onClose={() => setWechatOpen(false)} />}
    </Card>
  );
}
