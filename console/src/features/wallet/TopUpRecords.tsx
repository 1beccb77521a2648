/** The user's own online top-up orders (GET /api/user/topup/self). */
import { Card, Table, Tag } from 'antd';
import dayjs from 'dayjs';
import { useIntl } from 'react-intl';
import { usePaging } from '../../shared/usePaging';
import { useListOwnTopUpsQuery } from './api';
import { TOPUP_TIME_FORMAT } from './constants';
import { records as m } from './messages';
import type { TopUpOrder } from './types';

const ORDER_SUCCESS = 'success';
const time = (t: number) => (t ? dayjs.unix(t).format(TOPUP_TIME_FORMAT) : '-');

export function TopUpRecords() {
  const intl = useIntl();
  const { page, pageSize, pagination } = usePaging();
  const { data, isFetching } = useListOwnTopUpsQuery({ p: page, pageSize });
  return (
    <Card title={intl.formatMessage(m.title)}>
      <Table<TopUpOrder>
        rowKey="id"
        size="small"
        scroll={{ x: 800 }}
        loading={isFetching}
        dataSource={data?.items ?? []}
        columns={[
          { title: intl.formatMessage(m.tradeNo), dataIndex: 'trade_no' },
          { title: intl.formatMessage(m.amount), dataIndex: 'amount' },
          { title: intl.formatMessage(m.money), dataIndex: 'money', render: (v: number) => v.toFixed(2) },
          { title: intl.formatMessage(m.method), dataIndex: 'payment_method' },
          {
            title: intl.formatMessage(m.status),
            dataIndex: 'status',
            render: (s: string) =>
              s === ORDER_SUCCESS ? (
                <Tag color="green">{intl.formatMessage(m.success)}</Tag>
              ) : (
                <Tag>{intl.formatMessage(m.pending)}</Tag>
              ),
          },
          { title: intl.formatMessage(m.created), dataIndex: 'create_time', render: time },
          { title: intl.formatMessage(m.completed), dataIndex: 'complete_time', render: time },
        ]}
        pagination={pagination(data?.total ?? 0)}
      />
    </Card>
  );
}
