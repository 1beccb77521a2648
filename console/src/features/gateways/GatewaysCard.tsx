/** The gateways following the config feed: the newest version, how many are connected, and the table. */
import { Card, Empty, Flex, Statistic, Table, Typography } from 'antd';
import { useMemo } from 'react';
import { useIntl } from 'react-intl';
import { gatewayColumns } from './columns';
import { feed as m } from './messages';
import { connectedCount } from './rules';
import type { Gateway, GatewayList } from './types';

export function GatewaysCard({ data, loading }: { data: GatewayList | undefined; loading: boolean }) {
  const intl = useIntl();
  const columns = useMemo(() => gatewayColumns(intl), [intl]);
  const items = data?.items ?? [];
  return (
    <Card title={intl.formatMessage(m.title)} data-testid="gateways-card">
      <Typography.Paragraph type="secondary">{intl.formatMessage(m.hint)}</Typography.Paragraph>
      <Flex gap={48} wrap style={{ marginBottom: 16 }}>
        <Statistic
          title={intl.formatMessage(m.newestVersion)}
          value={data?.version ?? '-'}
          groupSeparator=""
          data-testid="gateways-version"
        />
        <Statistic
          title={intl.formatMessage(m.connectedCount)}
          value={data ? `${connectedCount(items)} / ${items.length}` : '-'}
          data-testid="gateways-connected-count"
        />
      </Flex>
      <Table<Gateway>
        rowKey="gateway_id"
        size="middle"
        scroll={{ x: 720 }}
        loading={loading}
        columns={columns}
        dataSource={items}
        pagination={false}
        locale={{
          emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={intl.formatMessage(m.empty)} />,
        }}
        data-testid="gateways-table"
      />
    </Card>
  );
}
