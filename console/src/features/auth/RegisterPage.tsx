import { Alert, Button, Form, Input } from 'antd';
import { useEffect, useState } from 'react';
import { useIntl } from 'react-intl';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { readString, STORAGE_KEY, writeString } from '../../shared/storage';
import { Turnstile } from '../../shared/Turnstile';
import { validateRegister, validateTurnstile } from '../../shared/validation';
import { useStatus } from '../status/useStatus';
import { useRegisterMutation } from './api';
import { EmailCodeField } from './EmailCodeField';
import { AuthCard } from './AuthCard';
import { register as m } from './messages';
import { succeeded } from '../../shared/succeeded';

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
  const [turnstile, setTurnstile] = useState('');
  const turnstileOn = Boolean(status.turnstile_check);
  const affParam = params.get('aff');

  useEffect(() => {
    if (affParam) writeString(STORAGE_KEY.aff, affParam);
  }, [affParam]);

  const onFinish = async (v: Values) => {
    if (reportProblem(intl, validateRegister(v))) return;
    if (reportProblem(intl, validateTurnstile(turnstileOn, turnstile))) return;
    const aff = affParam ?? readString(STORAGE_KEY.aff) ?? undefined;
    const ok = await succeeded(register({ ...v, username: v.username.trim(), aff_code: aff, turnstile }));
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
          <Input.Password
            autoComplete="new-password"
            maxLength={20}
            placeholder={intl.formatMessage(m.password)}
            data-testid="register-password"
          />
        </Form.Item>
        <Form.Item label={intl.formatMessage(m.password2)} name="password2">
          <Input.Password autoComplete="new-password" maxLength={20} data-testid="register-password2" />
        </Form.Item>
        {status.email_verification && (
          <>
            <EmailCodeField
              form={form}
              label={intl.formatMessage(m.email)}
              turnstile={{ enabled: turnstileOn, token: turnstile }}
            />
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
