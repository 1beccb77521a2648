import { Alert, Button, Flex, Form, Input } from 'antd';
import { useEffect, useState } from 'react';
import { useIntl } from 'react-intl';
import { Link, useSearchParams } from 'react-router';
import { errors } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { STORAGE_KEY, writeString } from '../../shared/storage';
import { Turnstile } from '../../shared/Turnstile';
import { validateLogin, validateTurnstile } from '../../shared/validation';
import { useStatus } from '../status/useStatus';
import { useLoginMutation } from './api';
import { AuthCard } from './AuthCard';
import { login as m } from './messages';
import { ThirdPartyButtons } from './ThirdPartyButtons';
import { useSignIn } from './useSignIn';

interface Values {
  username: string;
  password: string;
}

export function LoginPage() {
  const intl = useIntl();
  const [params] = useSearchParams();
  const { status } = useStatus();
  const [login, { isLoading }] = useLoginMutation();
  const signIn = useSignIn();
  const [turnstile, setTurnstile] = useState('');
  const aff = params.get('aff') ?? undefined;
  const returnTo = params.get('returnTo');

  useEffect(() => {
    if (aff) writeString(STORAGE_KEY.aff, aff);
  }, [aff]);

  const onFinish = async (v: Values) => {
    if (reportProblem(intl, validateLogin(v))) return;
    if (reportProblem(intl, validateTurnstile(Boolean(status.turnstile_check), turnstile))) return;
    const user = await login({ username: v.username.trim(), password: v.password, turnstile })
      .unwrap()
      .catch(() => undefined);
    if (user) signIn(user, returnTo);
  };

  return (
    <AuthCard title={intl.formatMessage(m.title)}>
      {params.has('expired') && (
        <Alert
          type="warning"
          showIcon
          title={intl.formatMessage(errors.unauthorized)}
          style={{ marginBottom: 16 }}
          data-testid="expired-alert"
        />
      )}
      {status.password_login_enabled === false ? (
        <Alert type="info" title={intl.formatMessage(m.passwordLoginDisabled)} />
      ) : (
        <Form<Values> layout="vertical" onFinish={onFinish} requiredMark={false}>
          <Form.Item label={intl.formatMessage(m.username)} name="username">
            <Input autoComplete="username" data-testid="login-username" />
          </Form.Item>
          <Form.Item label={intl.formatMessage(m.password)} name="password">
            <Input.Password autoComplete="current-password" data-testid="login-password" />
          </Form.Item>
          <Turnstile enabled={Boolean(status.turnstile_check)} siteKey={status.turnstile_site_key} onToken={setTurnstile} />
          <Button type="primary" htmlType="submit" block loading={isLoading} data-testid="login-submit">
            {intl.formatMessage(m.submit)}
          </Button>
        </Form>
      )}
      <Flex justify="space-between" style={{ marginTop: 12 }} wrap>
        {!status.self_use_mode_enabled && <Link to="/register">{intl.formatMessage(m.noAccount)}</Link>}
        <Link to="/reset">{intl.formatMessage(m.forgot)}</Link>
      </Flex>
      <ThirdPartyButtons status={status} aff={aff} returnTo={returnTo} onUser={(u) => signIn(u, returnTo, '/')} />
    </AuthCard>
  );
}
