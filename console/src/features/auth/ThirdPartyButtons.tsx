import { Button, Divider, Flex } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import type { LoginUser, StatusData } from '../../api/types';
import { readString, STORAGE_KEY } from '../../shared/storage';
import { useWechatLoginMutation } from './api';
import { login as m } from './messages';
import { TelegramSignIn } from './TelegramSignIn';
import { useOAuthRedirect } from './useOAuthRedirect';
import { WeChatCodeModal } from './WeChatCodeModal';

interface Props {
  status: Partial<StatusData>;
  /** The invitation code of the page's ?aff= (else the one stored from an earlier visit). */
  aff?: string;
  /** Where to go once signed in through a provider's page. */
  returnTo?: string | null;
  /** Sign-ins that finish on this page (WeChat code, Telegram widget). */
  onUser: (u: LoginUser) => void;
}

/** Sign-in buttons for the providers the status enables. */
export function ThirdPartyButtons({ status, aff, returnTo, onUser }: Props) {
  const intl = useIntl();
  const redirect = useOAuthRedirect(status);
  const [wechatLogin, { isLoading }] = useWechatLoginMutation();
  const [wechatOpen, setWechatOpen] = useState(false);
  const intent = () => ({ aff: aff ?? readString(STORAGE_KEY.aff) ?? undefined, returnTo });
  const onWechatCode = async (code: string) => {
    const user = await wechatLogin({ code })
      .unwrap()
      .catch(() => undefined);
    if (!user) return false;
    onUser(user);
    return true;
  };
  const any = status.github_oauth || status.oidc_enabled || status.linuxdo_oauth || status.wechat_login || status.telegram_oauth;
  if (!any) return null;
  return (
    <>
      <Divider plain>{intl.formatMessage(m.or)}</Divider>
      <Flex vertical gap={8}>
        {status.github_oauth && <Button onClick={() => redirect('github', intent())}>{intl.formatMessage(m.github)}</Button>}
        {status.oidc_enabled && <Button onClick={() => redirect('oidc', intent())}>{intl.formatMessage(m.oidc)}</Button>}
        {status.linuxdo_oauth && <Button onClick={() => redirect('linuxdo', intent())}>{intl.formatMessage(m.linuxdo)}</Button>}
        {status.wechat_login && <Button onClick={() => setWechatOpen(true)}>{intl.formatMessage(m.wechat)}</Button>}
        {status.telegram_oauth && status.telegram_bot_name && (
          <TelegramSignIn botName={status.telegram_bot_name} onUser={onUser} />
        )}
      </Flex>
      {wechatOpen && (
        <WeChatCodeModal
          title={intl.formatMessage(m.wechat)}
          qr={status.wechat_qrcode}
          loading={isLoading}
          onClose={() => setWechatOpen(false)}
          onSubmit={onWechatCode}
        />
      )}
    </>
  );
}
