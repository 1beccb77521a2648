import { Button, Form, Input } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { Link } from 'react-router';
import { RESET_COOLDOWN_SECONDS } from '../../shared/constants';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { Turnstile } from '../../shared/Turnstile';
import { useCooldown } from '../../shared/useCooldown';
import { validateEmailForCode, validateTurnstile } from '../../shared/validation';
import { useStatus } from '../status/useStatus';
import { useRequestPasswordResetMutation } from './api';
import { AuthCard } from './AuthCard';
import { reset as m } from './messages';
import { succeeded } from '../../shared/succeeded';

export function ResetRequestPage() {
  const intl = useIntl();
  const { status } = useStatus();
  const [send, { isLoading }] = useRequestPasswordResetMutation();
  const [cooldown, startCooldown] = useCooldown(RESET_COOLDOWN_SECONDS);
  const [turnstile, setTurnstile] = useState('');

  const onFinish = async ({ email }: { email?: string }) => {
    if (reportProblem(intl, validateEmailForCode(email))) return;
    if (reportProblem(intl, validateTurnstile(Boolean(status.turnstile_check), turnstile))) return;
    const ok = await succeeded(send({ email: email!.trim(), turnstile }));
    if (ok) {
      toast.success(intl.formatMessage(m.sent));
      startCooldown();
    }
  };

  return (
    <AuthCard title={intl.formatMessage(m.title)}>
      <Form layout="vertical" onFinish={onFinish} requiredMark={false}>
        <Form.Item label={intl.formatMessage(m.email)} name="email">
          <Input type="email" data-testid="reset-email" />
        </Form.Item>
        <Turnstile enabled={Boolean(status.turnstile_check)} siteKey={status.turnstile_site_key} onToken={setTurnstile} />
        {/* Keyed by state: entering the cooldown mounts a fresh button, so the spinner's leave
            animation cannot linger in the "Retry" label. */}
        <Button
          key={cooldown > 0 ? 'cooldown' : 'send'}
          type="primary"
          htmlType="submit"
          block
          loading={isLoading && cooldown === 0}
          disabled={cooldown > 0}
        >
          {cooldown > 0 ? intl.formatMessage(m.retry, { n: cooldown }) : intl.formatMessage(m.submit)}
        </Button>
      </Form>
      <div style={{ marginTop: 12 }}>
        <Link to="/login">{intl.formatMessage(m.backToLogin)}</Link>
      </div>
    </AuthCard>
  );
}
