import { Alert, Button, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { Link, useSearchParams } from 'react-router';
import { copyWithFallback } from '../../shared/clipboard';
import { useConfirmPasswordResetMutation } from './api';
import { AuthCard } from './AuthCard';
import { reset as m } from './messages';

export function ResetConfirmPage() {
  const intl = useIntl();
  const [params] = useSearchParams();
  const email = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  const [confirm, { isLoading }] = useConfirmPasswordResetMutation();
  const [password, setPassword] = useState<string>();

  const onConfirm = async () => {
    const pw = await confirm({ email, token })
      .unwrap()
      .catch(() => undefined);
    if (typeof pw === 'string') {
      setPassword(pw);
      await copyWithFallback(intl, pw);
    }
  };

  return (
    <AuthCard title={intl.formatMessage(m.confirmTitle)}>
      {!email || !token ? (
        <Alert type="error" title={intl.formatMessage(m.missingLink)} />
      ) : password ? (
        <>
          <Typography.Paragraph>{intl.formatMessage(m.newPassword)}</Typography.Paragraph>
          <Typography.Paragraph code copyable data-testid="new-password">
            {password}
          </Typography.Paragraph>
        </>
      ) : (
        <>
          <Typography.Paragraph>{email}</Typography.Paragraph>
          <Button type="primary" block onClick={onConfirm} loading={isLoading}>
            {intl.formatMessage(m.confirmSubmit)}
          </Button>
        </>
      )}
      <div style={{ marginTop: 12 }}>
        <Link to="/login">{intl.formatMessage(m.backToLogin)}</Link>
      </div>
    </AuthCard>
  );
}
