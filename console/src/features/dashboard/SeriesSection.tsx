/** One dashboard section (by model or by user): a metric over time, its share, and the totals per name. */
import { Card, Col, Empty, Flex, Row, Segmented, Spin, Table, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import type { QuotaDisplay } from '../../shared/quota';
import { METRIC, OTHER_SERIES, type Granularity, type Metric } from './constants';
import { ShareChart, TrendChart } from './charts';
import { formatMetric } from './format';
import { charts as cm, dashboard as m } from './messages';
import { breakdownOf, shapeSeries, shareOf, type BreakdownRow, type Rollup } from './shape';
import type { TimeRange } from './types';

export interface SeriesSectionProps {
  title: MessageDescriptor;
  /** Header of the name column (model or user). */
  nameTitle: MessageDescriptor;
  rows: Rollup[];
  range: TimeRange;
  granularity: Granularity;
  display: QuotaDisplay;
  loading: boolean;
  testId: string;
}

const METRICS: { value: Metric; label: MessageDescriptor }[] = [
  { value: METRIC.quota, label: cm.quota },
  { value: METRIC.count, label: cm.count },
  { value: METRIC.tokens, label: cm.tokens },
];

export function SeriesSection({ title, nameTitle, rows, range, granularity, display, loading, testId }: SeriesSectionProps) {
  const intl = useIntl();
  const [metric, setMetric] = useState<Metric>(METRIC.quota);
  const shaped = useMemo(() => shapeSeries(rows, metric, granularity, range), [rows, metric, granularity, range]);
  const slices = useMemo(() => shareOf(rows, metric), [rows, metric]);
  const table = useMemo(() => breakdownOf(rows), [rows]);
  const totalQuota = table.reduce((s, r) => s + r.quota, 0);
  const format = (v: number, compact = false) => formatMetric(v, metric, display, compact);
  const nameOf = (name: string) => (name === OTHER_SERIES ? intl.formatMessage(m.other) : name);

  const body =
    rows.length === 0 ? (
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={intl.formatMessage(m.empty)} data-testid={`${testId}-empty`} />
    ) : (
      <Flex vertical gap={16}>
        <Row gutter={[16, 16]}>
          <Col xs={24} lg={16}>
            <Typography.Text type="secondary">{intl.formatMessage(cm.trend)}</Typography.Text>
            <TrendChart points={shaped.points} series={shaped.series} format={format} nameOf={nameOf} />
          </Col>
          <Col xs={24} lg={8}>
            <Typography.Text type="secondary">{intl.formatMessage(cm.share)}</Typography.Text>
            <ShareChart slices={slices} format={format} nameOf={nameOf} />
          </Col>
        </Row>
        <Table<BreakdownRow>
          rowKey="name"
          size="small"
          pagination={false}
          scroll={{ x: 560 }}
          dataSource={table}
          data-testid={`${testId}-table`}
          columns={[
            { title: intl.formatMessage(nameTitle), dataIndex: 'name', ellipsis: true },
            {
              title: intl.formatMessage(cm.count),
              dataIndex: 'count',
              align: 'right',
              render: (v: number) => formatMetric(v, METRIC.count, display),
            },
            {
              title: intl.formatMessage(cm.tokens),
              dataIndex: 'tokens',
              align: 'right',
              render: (v: number) => formatMetric(v, METRIC.tokens, display),
            },
            {
              title: intl.formatMessage(cm.quota),
              dataIndex: 'quota',
              align: 'right',
              render: (v: number) => formatMetric(v, METRIC.quota, display),
            },
            {
              title: intl.formatMessage(cm.percent),
              key: 'percent',
              align: 'right',
              render: (_, r) =>
                totalQuota > 0 ? intl.formatNumber(r.quota / totalQuota, { style: 'percent', maximumFractionDigits: 1 }) : '—',
            },
          ]}
        />
      </Flex>
    );

  return (
    <Card
      title={intl.formatMessage(title)}
      extra={
        <Segmented<Metric>
          size="small"
          value={metric}
          onChange={setMetric}
          options={METRICS.map((x) => ({ value: x.value, label: intl.formatMessage(x.label) }))}
          data-testid={`${testId}-metric`}
        />
      }
      data-testid={testId}
    >
      <Spin spinning={loading}>{body}</Spin>
    </Card>
  );
}
