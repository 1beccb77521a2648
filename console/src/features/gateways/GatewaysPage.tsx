/**
 * /gateway (admin): the gateways that follow the control plane's config feed (applied version,
 * lag, last contact) and the usage records gateways reported that ingest refused. Both refresh
 * every 10 seconds while the screen is open, and on the refresh button.
 */
import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { errorText, isApiError } from '../../shared/apiError';
import { usePaging } from '../../shared/usePaging';
import { useListGatewaysQuery, useListRejectionsQuery } from './api';
import { GATEWAY_REFRESH_MS } from './constants';
import { GatewaysCard } from './GatewaysCard';
import { gateways as m } from './messages';
import { RejectionsCard } from './RejectionsCard';

const POLLING = { pollingInterval: GATEWAY_REFRESH_MS, refetchOnMountOrArgChange: true } as const;

export function GatewaysPage() {
  const intl = useIntl();
  const { page, pageSize, pagination } = usePaging();
  const gateways = useListGatewaysQuery(undefined, POLLING);
  const rejected = useListRejectionsQuery({ p: page, pageSize }, POLLING);
  const [refreshing, setRefreshing] = useState(false);

  const refresh = async () => {
    setRefreshing(true);
    await Promise.allSettled([gateways.refetch(), rejected.refetch()]);
    setRefreshing(false);
  };
  // Polled endpoints stay quiet in the global toasts (a failure would toast every 10 s): say it here.
  const failure = [gateways.error, rejected.error].find(isApiError);

  return (
    <Flex vertical gap={16}>
      <Flex align="center" justify="space-between" wrap gap={8}>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {intl.formatMessage(m.title)}
        </Typography.Title>
        <Flex align="center" gap={12} wrap>
          <Typography.Text type="secondary">
            {intl.formatMessage(m.autoRefresh, { seconds: GATEWAY_REFRESH_MS / 1000 })}
          </Typography.Text>
          <Button icon={<ReloadOutlined />} loading={refreshing} onClick={() => void refresh()} data-testid="gateways-refresh">
            {intl.formatMessage(m.refresh)}
          </Button>
        </Flex>
      </Flex>
      {failure && <Alert type="error" showIcon title={errorText(intl, failure)} data-testid="gateways-error" />}
      <GatewaysCard data={gateways.data} loading={gateways.isLoading} />
      {/* A new page shows the spinner; a poll of the same page does not. */}
      <RejectionsCard data={rejected.data} loading={rejected.isFetching && !rejected.currentData} pagination={pagination} />
    </Flex>
  );
}
