/** The columns of the gateway table and of the refused usage records table. */
import { WarningOutlined } from '@ant-design/icons';
import { Space, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { IntlShape } from 'react-intl';
import { feedColumns as m, rejections as rm } from './messages';
import { RelativeTime } from './RelativeTime';
import { formatTime, isLagging, isNegativeQuota } from './rules';
import type { Gateway, Rejection } from './types';

const NO_WRAP = { whiteSpace: 'nowrap' } as const;

function Lag({ intl, g }: { intl: IntlShape; g: Gateway }) {
  const warn = isLagging(g);
  const testId = `gateway-lag-${g.gateway_id}`;
  if (g.lag <= 0) {
    return (
      <Typography.Text type="secondary" data-testid={testId}>
        {intl.formatMessage(m.upToDate)}
      </Typography.Text>
    );
  }
  return (
    <Typography.Text
      type={warn ? 'warning' : 'secondary'}
      strong={warn}
      style={NO_WRAP}
      data-testid={testId}
      data-warning={warn ? 'true' : undefined}
    >
      {warn && <WarningOutlined style={{ marginInlineEnd: 4 }} />}
      {intl.formatMessage(m.behind, { lag: g.lag })}
    </Typography.Text>
  );
}

function LastContact({ intl, t }: { intl: IntlShape; t: number }) {
  if (!t) return <Typography.Text type="secondary">{intl.formatMessage(m.never)}</Typography.Text>;
  return (
    <Space orientation="vertical" size={0} style={NO_WRAP}>
      <span>{formatTime(t)}</span>
      <Typography.Text type="secondary">
        <RelativeTime seconds={t} />
      </Typography.Text>
    </Space>
  );
}

export function gatewayColumns(intl: IntlShape): ColumnsType<Gateway> {
  return [
    {
      title: intl.formatMessage(m.gatewayId),
      dataIndex: 'gateway_id',
      render: (id: string) => (
        <Typography.Text strong data-testid={`gateway-id-${id}`}>
          {id}
        </Typography.Text>
      ),
    },
    {
      title: intl.formatMessage(m.connection),
      dataIndex: 'connected',
      render: (connected: boolean, g) => (
        <Tag color={connected ? 'green' : 'default'} data-testid={`gateway-connected-${g.gateway_id}`}>
          {intl.formatMessage(connected ? m.connected : m.disconnected)}
        </Tag>
      ),
    },
    { title: intl.formatMessage(m.version), dataIndex: 'version' },
    { title: intl.formatMessage(m.lag), key: 'lag', render: (_, g) => <Lag intl={intl} g={g} /> },
    {
      title: intl.formatMessage(m.lastContact),
      dataIndex: 'last_contact',
      render: (t: number) => <LastContact intl={intl} t={t} />,
    },
  ];
}

export function rejectionColumns(intl: IntlShape): ColumnsType<Rejection> {
  return [
    {
      title: intl.formatMessage(rm.time),
      dataIndex: 'created_at',
      width: 170,
      render: (t: number) => <span style={NO_WRAP}>{formatTime(t)}</span>,
    },
    { title: intl.formatMessage(rm.gateway), dataIndex: 'gateway_id', width: 120 },
    {
      title: intl.formatMessage(rm.requestId),
      dataIndex: 'request_id',
      width: 240,
      render: (id: string, r) =>
        id ? (
          <Typography.Text
            code
            copyable={{ text: id }}
            style={{ wordBreak: 'break-all' }}
            data-testid={`rejection-request-${r.id}`}
          >
            {id}
          </Typography.Text>
        ) : (
          '-'
        ),
    },
    { title: intl.formatMessage(rm.userId), dataIndex: 'user_id', width: 90 },
    { title: intl.formatMessage(rm.tokenId), dataIndex: 'token_id', width: 90 },
    {
      title: intl.formatMessage(rm.quota),
      dataIndex: 'quota',
      width: 120,
      render: (q: number, r) => {
        const negative = isNegativeQuota(q);
        return (
          <Typography.Text
            type={negative ? 'danger' : undefined}
            strong={negative}
            style={NO_WRAP}
            data-testid={`rejection-quota-${r.id}`}
            data-negative={negative ? 'true' : undefined}
          >
            {intl.formatNumber(q)}
          </Typography.Text>
        );
      },
    },
    {
      title: intl.formatMessage(rm.reason),
      dataIndex: 'reason',
      render: (reason: string, r) => <span data-testid={`rejection-reason-${r.id}`}>{reason}</span>,
    },
  ];
}
