import { Button, Divider, Flex } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import type { LoginUser, StatusData } from '../../api/types';
import { useOauthCallbackMutation } from './api';
import { login as m } from './messages';
import { useOAuthRedirect } from './useOAuthRedirect';
import { WeChatCodeModal } from './WeChatCodeModal';

/** Sign-in buttons for the providers the status enables. */
export function ThirdPartyButtons({
  status,
  aff,
  onUser,
}: {
  status: Partial<StatusData>;
  aff?: string;
  onUser: (u: LoginUser) => void;
}) {
  const intl = useIntl();
  const redirect = useOAuthRedirect(status);
  const [finish, { isLoading }] = useOauthCallbackMutation();
  const [wechatOpen, setWechatOpen] = useState(false);
  const wechatLogin = async (code: string) => {
    const user = await finish({ provider: 'wechat', code, state: '' })
      .unwrap()
      .catch(() => undefined);
    if (!user || typeof user !== 'object') return false;
    onUser(user);
    return true;
  };
  const any = status.github_oauth || status.oidc_enabled || status.linuxdo_oauth || status.wechat_login || status.telegram_oauth;
  if (!any) return null;
  return (
    <>
      <Divider plain>{intl.formatMessage(m.or)}</Divider>
      <Flex vertical gap={8}>
        {status.github_oauth && <Button onClick={() => redirect('github', aff)}>{intl.formatMessage(m.github)}</Button>}
        {status.oidc_enabled && <Button onClick={() => redirect('oidc', aff)}>{intl.formatMessage(m.oidc)}</Button>}
        {status.linuxdo_oauth && <Button onClick={() => redirect('linuxdo', aff)}>{intl.formatMessage(m.linuxdo)}</Button>}
        {status.wechat_login && <Button onClick={() => setWechatOpen(true)}>{intl.formatMessage(m.wechat)}</Button>}
        {status.telegram_oauth && status.telegram_bot_name && (
          <a href={`/api/oauth/telegram/login?bot=${encodeURIComponent(status.telegram_bot_name)}`}>
            <Button block>{intl.formatMessage(m.telegram)}</Button>
          </a>
        )}
      </Flex>
      {wechatOpen && (
        <WeChatCodeModal
          title={intl.formatMessage(m.wechat)}
          qr={status.wechat_qrcode}
          loading={isLoading}
          onClose={() => setWechatOpen(false)}
          onSubmit={wechatLogin}
        />
      )}
    </>
  );
}
