import { Button, Divider, Flex, Image, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import type { LoginUser, StatusData } from '../../api/types';
import { login as m } from './messages';
import { useOauthCallbackMutation, useOauthStateMutation } from './api';
import { githubAuthorizeUrl, linuxdoAuthorizeUrl, oidcAuthorizeUrl } from './oauthUrls';

type Provider = 'github' | 'oidc' | 'linuxdo';

function WeChatModal({ qr, open, onClose, onUser }: { qr?: string; open: boolean; onClose: () => void; onUser: (u: LoginUser) => void }) {
  const intl = useIntl();
  const [code, setCode] = useState('');
  const [finish, { isLoading }] = useOauthCallbackMutation();
  const submit = async () => {
    const user = await finish({ provider: 'wechat', code, state: '' }).unwrap().catch(() => undefined);
    if (user && typeof user === 'object') onUser(user);
  };
  return (
    <Modal open={open} onCancel={onClose} onOk={submit} confirmLoading={isLoading} title={intl.formatMessage(m.wechat)}>
      <Flex vertical align="center" gap={8}>
        {qr && <Image src={qr} width={200} preview={false} />}
        <Typography.Text type="secondary">{intl.formatMessage(m.wechatHint)}</Typography.Text>
        <Input value={code} onChange={(e) => setCode(e.target.value)} placeholder={intl.formatMessage(m.wechatCode)} />
      </Flex>
    </Modal>
  );
}

/** Sign-in buttons for the providers the status enables. */
export function ThirdPartyButtons({ status, aff, onUser }: { status: Partial<StatusData>; aff?: string; onUser: (u: LoginUser) => void }) {
  const intl = useIntl();
  const [getState] = useOauthStateMutation();
  const [wechatOpen, setWechatOpen] = useState(false);
  const start = async (p: Provider) => {
    const state = await getState({ aff }).unwrap().catch(() => undefined);
    if (typeof state !== 'string') return;
    const origin = window.location.origin;
    if (p === 'github') window.location.assign(githubAuthorizeUrl(status.github_client_id ?? '', state));
    if (p === 'oidc')
      window.location.assign(oidcAuthorizeUrl(status.oidc_authorization_endpoint ?? '', status.oidc_client_id ?? '', state, origin));
    if (p === 'linuxdo') window.location.assign(linuxdoAuthorizeUrl(status.linuxdo_client_id ?? '', state));
  };
  const any = status.github_oauth || status.oidc_enabled || status.linuxdo_oauth || status.wechat_login || status.telegram_oauth;
  if (!any) return null;
  return (
    <>
      <Divider plain>{intl.formatMessage(m.or)}</Divider>
      <Flex vertical gap={8}>
        {status.github_oauth && <Button onClick={() => start('github')}>{intl.formatMessage(m.github)}</Button>}
        {status.oidc_enabled && <Button onClick={() => start('oidc')}>{intl.formatMessage(m.oidc)}</Button>}
        {status.linuxdo_oauth && <Button onClick={() => start('linuxdo')}>{intl.formatMessage(m.linuxdo)}</Button>}
        {status.wechat_login && <Button onClick={() => setWechatOpen(true)}>{intl.formatMessage(m.wechat)}</Button>}
        {status.telegram_oauth && status.telegram_bot_name && (
          <a href={`/api/oauth/telegram/login?bot=${encodeURIComponent(status.telegram_bot_name)}`}>
            <Button block>{intl.formatMessage(m.telegram)}</Button>
          </a>
        )}
      </Flex>
      <WeChatModal qr={status.wechat_qrcode} open={wechatOpen} onClose={() => setWechatOpen(false)} onUser={onUser} />
    </>
  );
}
