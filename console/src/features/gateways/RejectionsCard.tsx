/** Usage records gateways reported that the control plane refused: what they are, and one page of them. */
import { Badge, Card, Empty, Flex, Table, Typography, type TablePaginationConfig } from 'antd';
import { useMemo } from 'react';
import { useIntl } from 'react-intl';
import type { Page } from '../../api/types';
import { rejectionColumns } from './columns';
import { rejections as m } from './messages';
import type { Rejection } from './types';

const RECORD_BLOCK = { margin: '4px 0 0', whiteSpace: 'pre-wrap', wordBreak: 'break-all' } as const;

function RecordBlock({ r }: { r: Rejection }) {
  const intl = useIntl();
  return (
    <Typography>
      <Typography.Text type="secondary">{intl.formatMessage(m.record)}</Typography.Text>
      <pre style={RECORD_BLOCK} data-testid={`rejection-record-${r.id}`}>
        {r.record}
      </pre>
    </Typography>
  );
}

export interface RejectionsCardProps {
  data: Page<Rejection> | undefined;
  loading: boolean;
  pagination: (total: number) => TablePaginationConfig;
}

export function RejectionsCard({ data, loading, pagination }: RejectionsCardProps) {
  const intl = useIntl();
  const columns = useMemo(() => rejectionColumns(intl), [intl]);
  const total = data?.total ?? 0;
  return (
    <Card
      title={
        <Flex gap={8} align="center">
          {intl.formatMessage(m.title)}
          <Badge count={total} overflowCount={99999} data-testid="rejections-count" />
        </Flex>
      }
      data-testid="rejections-card"
    >
      <Typography.Paragraph type="secondary" data-testid="rejections-explain">
        {intl.formatMessage(m.explain)}
      </Typography.Paragraph>
      <Table<Rejection>
        rowKey="id"
        size="middle"
        scroll={{ x: 1100 }}
        loading={loading}
        columns={columns}
        dataSource={data?.items ?? []}
        expandable={{ expandedRowRender: (r) => <RecordBlock r={r} />, rowExpandable: (r) => r.record !== '' }}
        pagination={pagination(total)}
        locale={{
          emptyText: (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={intl.formatMessage(m.empty)}
              data-testid="rejections-empty"
            />
          ),
        }}
        data-testid="rejections-table"
      />
    </Card>
  );
}
