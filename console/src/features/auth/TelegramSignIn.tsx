import { Button, Flex, Spin } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import type { LoginUser } from '../../api/types';
import { useTelegramLoginMutation } from './api';
import { login as m } from './messages';
import type { TelegramUser } from './telegram';
import { TelegramLoginWidget } from './TelegramLoginWidget';

/** "Sign in with Telegram": loads the widget when asked, then signs in with what it returns. */
export function TelegramSignIn({ botName, onUser }: { botName: string; onUser: (u: LoginUser) => void }) {
  const intl = useIntl();
  const [shown, setShown] = useState(false);
  const [login, { isLoading }] = useTelegramLoginMutation();
  const onAuth = async (tg: TelegramUser) => {
    const user = await login(tg)
      .unwrap()
      .catch(() => undefined);
    if (user) onUser(user);
  };
  if (!shown) return <Button onClick={() => setShown(true)}>{intl.formatMessage(m.telegram)}</Button>;
  return (
    <Flex justify="center">
      <Spin spinning={isLoading}>
        <TelegramLoginWidget botName={botName} onAuth={onAuth} />
      </Spin>
    </Flex>
  );
}
