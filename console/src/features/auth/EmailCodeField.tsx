import { Button, Form, Input, Space } from 'antd';
import type { FormInstance } from 'antd';
import { useIntl } from 'react-intl';
import { EMAIL_CODE_COOLDOWN_SECONDS } from '../../shared/constants';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { succeeded } from '../../shared/succeeded';
import { useCooldown } from '../../shared/useCooldown';
import { validateEmailForCode, validateTurnstile } from '../../shared/validation';
import { useSendVerificationMutation } from './api';
import { register as m } from './messages';

interface Props {
  form: FormInstance;
  label: string;
  /** The human check, when the status enables it. */
  turnstile?: { enabled: boolean; token: string };
}

/** The `email` form field with a get-code button and its 30-second 'resend (n)' cooldown. */
export function EmailCodeField({ form, label, turnstile }: Props) {
  const intl = useIntl();
  const [sendCode, { isLoading }] = useSendVerificationMutation();
  const [cooldown, startCooldown] = useCooldown(EMAIL_CODE_COOLDOWN_SECONDS);
  const onSend = async () => {
    const email = form.getFieldValue('email') as string | undefined;
    if (reportProblem(intl, validateEmailForCode(email))) return;
    if (turnstile && reportProblem(intl, validateTurnstile(turnstile.enabled, turnstile.token))) return;
    if (await succeeded(sendCode({ email: email!.trim(), turnstile: turnstile?.token }))) {
      toast.success(intl.formatMessage(m.codeSent));
      startCooldown();
    }
  };
  return (
    <Form.Item label={label}>
      <Space.Compact style={{ width: '100%' }}>
        <Form.Item name="email" noStyle>
          <Input type="email" data-testid="email-input" />
        </Form.Item>
        {/* Keyed by state, as on the reset page: no lingering spinner in the "Resend" label. */}
        <Button
          key={cooldown > 0 ? 'cooldown' : 'send'}
          onClick={onSend}
          loading={isLoading && cooldown === 0}
          disabled={cooldown > 0}
        >
          {cooldown > 0 ? intl.formatMessage(m.resend, { n: cooldown }) : intl.formatMessage(m.getCode)}
        </Button>
      </Space.Compact>
    </Form.Item>
  );
}
