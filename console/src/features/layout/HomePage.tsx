import { Alert, Button, Flex, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { Link } from 'react-router';
import { useCurrentUser } from '../../app/hooks';
import { useStatus } from '../status/useStatus';
import { pages as m } from './messages';

/** The operator's notice, shown as plain text (no HTML is interpreted); nothing without one. */
export function HomeNotice() {
  const { status } = useStatus();
  if (!status.notice) return null;
  return (
    <Alert type="info" showIcon title={<span style={{ whiteSpace: 'pre-wrap' }}>{status.notice}</span>} data-testid="notice" />
  );
}

export function HomePage() {
  const intl = useIntl();
  const { status } = useStatus();
  const user = useCurrentUser();
  return (
    <Flex vertical align="center" gap={16} style={{ padding: '64px 16px', textAlign: 'center' }}>
      <HomeNotice />
      <Typography.Title level={2}>
        {intl.formatMessage(m.homeTitle, { name: status.system_name || 'AI Gateway' })}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{intl.formatMessage(m.homeText)}</Typography.Paragraph>
      <Link to={user ? '/personal' : '/login'}>
        <Button type="primary" size="large">
          {intl.formatMessage(m.homeConsole)}
        </Button>
      </Link>
    </Flex>
  );
}
