import { Alert, Button, Form, Input, Space } from 'antd';
import { useEffect, useState } from 'react';
import { useIntl } from 'react-intl';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { EMAIL_CODE_COOLDOWN_SECONDS } from '../../shared/constants';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { readString, STORAGE_KEY, writeString } from '../../shared/storage';
import { Turnstile } from '../../shared/Turnstile';
import { useCooldown } from '../../shared/useCooldown';
import { validateEmailForCode, validateRegister, validateTurnstile } from '../../shared/validation';
import { useStatus } from '../status/useStatus';
import { useRegisterMutation, useSendVerificationMutation } from './api';
import { AuthCard } from './AuthCard';
import { register as m } from './messages';

interface Values {
  username: string;
  password: string;
  password2: string;
  email?: string;
  verification_code?: string;
}

export function RegisterPage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { status } = useStatus();
  const [form] = Form.useForm<Values>();
  const [register, { isLoading }] = useRegisterMutation();
  const [sendCode, { isLoading: sending }] = useSendVerificationMutation();
  const [cooldown, startCooldown] = useCooldown(EMAIL_CODE_COOLDOWN_SECONDS);
  const [turnstile, setTurnstile] = useState('');
  const turnstileOn = Boolean(status.turnstile_check);
  const affParam = params.get('aff');

  useEffect(() => {
    if (affParam) writeString(STORAGE_KEY.aff, affParam);
  }, [affParam]);

  const onSendCode = async () => {
    const email = form.getFieldValue('email') as string | undefined;
    if (reportProblem(intl, validateEmailForCode(email))) return;
    if (reportProblem(intl, validateTurnstile(turnstileOn, turnstile))) return;
    const ok = await sendCode({ email: email!.trim(), turnstile }).unwrap().then(
      () => true,
      () => false,
    );
    if (ok) {
      toast.success(intl.formatMessage(m.codeSent));
      startCooldown();
    }
  };

  const onFinish = async (v: Values) => {
    if (reportProblem(intl, validateRegister(v))) return;
    if (reportProblem(intl, validateTurnstile(turnstileOn, turnstile))) return;
    const aff = affParam ?? readString(STORAGE_KEY.aff) ?? undefined;
    const ok = await register({ ...v, username: v.username.trim(), aff_code: aff, turnstile }).unwrap().then(
      () => true,
      () => false,
    );
    if (ok) {
      toast.success(intl.formatMessage(m.success));
      navigate('/login');
    }
  };

  const disabled = status.register_enabled === false || status.password_register_enabled === false;
  return (
    <AuthCard title={intl.formatMessage(m.title)}>
      {disabled && <Alert type="info" title={intl.formatMessage(m.disabled)} style={{ marginBottom: 16 }} />}
      <Form<Values> form={form} layout="vertical" onFinish={onFinish} requiredMark={false} disabled={disabled}>
        <Form.Item label={intl.formatMessage(m.username)} name="username">
          <Input autoComplete="username" data-testid="register-username" />
        </Form.Item>
        <Form.Item label={intl.formatMessage(m.password)} name="password">
          <Input.Password autoComplete="new-password" maxLength={20} placeholder={intl.formatMessage(m.password)} data-testid="register-password" />
        </Form.Item>
        <Form.Item label={intl.formatMessage(m.password2)} name="password2">
          <Input.Password autoComplete="new-password" maxLength={20} data-testid="register-password2" />
        </Form.Item>
        {status.email_verification && (
          <>
            <Form.Item label={intl.formatMessage(m.email)}>
              <Space.Compact style={{ width: '100%' }}>
                <Form.Item name="email" noStyle>
                  <Input type="email" data-testid="register-email" />
                </Form.Item>
                <Button onClick={onSendCode} loading={sending} disabled={cooldown > 0}>
                  {cooldown > 0 ? intl.formatMessage(m.resend, { n: cooldown }) : intl.formatMessage(m.getCode)}
                </Button>
              </Space.Compact>
            </Form.Item>
            <Form.Item label={intl.formatMessage(m.code)} name="verification_code">
              <Input data-testid="register-code" />
            </Form.Item>
          </>
        )}
        <Turnstile enabled={turnstileOn} siteKey={status.turnstile_site_key} onToken={setTurnstile} />
        <Button type="primary" htmlType="submit" block loading={isLoading} data-testid="register-submit">
          {intl.formatMessage(m.submit)}
        </Button>
      </Form>
      <div style={{ marginTop: 12 }}>
        <Link to="/login">{intl.formatMessage(m.haveAccount)}</Link>
      </div>
    </AuthCard>
  );
}
