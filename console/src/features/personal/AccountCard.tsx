import { Avatar, Button, Card, Descriptions, Flex, Input, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import type { User } from '../../api/types';
import { isRoot } from '../../shared/constants';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { renderQuota } from '../../shared/quota';
import { useQuotaDisplay } from '../status/useStatus';
import { useUpdateSelfMutation } from './api';
import { account as m } from './messages';
import { succeeded } from '../../shared/succeeded';

function DisplayNameEditor({ user }: { user: User }) {
  const intl = useIntl();
  const [value, setValue] = useState(user.display_name);
  const [update, { isLoading }] = useUpdateSelfMutation();
  const save = async () => {
    const ok = await succeeded(update({ display_name: value }));
    if (ok) toast.success(intl.formatMessage(m.displayNameSaved));
  };
  return (
    <Space.Compact style={{ maxWidth: 360, width: '100%' }}>
      <Input value={value} onChange={(e) => setValue(e.target.value)} aria-label={intl.formatMessage(m.displayName)} />
      <Button onClick={save} loading={isLoading} disabled={value === user.display_name}>
        {intl.formatMessage(common.save)}
      </Button>
    </Space.Compact>
  );
}

export function AccountCard({ user }: { user: User }) {
  const intl = useIntl();
  const display = useQuotaDisplay();
  return (
    <Card title={intl.formatMessage(m.title)} data-testid="account-card">
      <Flex gap={16} align="center" wrap style={{ marginBottom: 16 }}>
        <Avatar size={56}>{(user.display_name || user.username).slice(0, 1).toUpperCase()}</Avatar>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {user.display_name || user.username}
          </Typography.Title>
          <Typography.Text type="secondary">{user.username}</Typography.Text>{' '}
          <Tag color={isRoot(user.role) ? 'gold' : 'blue'}>
            {intl.formatMessage(isRoot(user.role) ? m.roleAdmin : m.roleUser)}
          </Tag>
          <Tag>{user.group}</Tag>
        </div>
      </Flex>
      <Descriptions
        size="small"
        column={{ xs: 1, sm: 3 }}
        items={[
          { key: 'balance', label: intl.formatMessage(m.balance), children: renderQuota(user.quota, display) },
          { key: 'used', label: intl.formatMessage(m.used), children: renderQuota(user.used_quota, display) },
          { key: 'requests', label: intl.formatMessage(m.requests), children: user.request_count },
        ]}
      />
      <Typography.Text strong>{intl.formatMessage(m.displayName)}</Typography.Text>
      <div style={{ marginTop: 4 }}>
        <DisplayNameEditor key={user.display_name} user={user} />
      </div>
    </Card>
  );
}
