/** The totals of the range: consumption, calls, tokens, average RPM and TPM. */
import { Card, Col, Row, Statistic } from 'antd';
import { useIntl } from 'react-intl';
import type { QuotaDisplay } from '../../shared/quota';
import { METRIC } from './constants';
import { formatMetric, formatRate } from './format';
import { summary as m } from './messages';
import { ratesOf, type Totals } from './shape';
import type { TimeRange } from './types';

export function SummaryCards({ totals, range, display }: { totals: Totals; range: TimeRange; display: QuotaDisplay }) {
  const intl = useIntl();
  const rates = ratesOf(totals, range);
  const items = [
    { key: 'quota', title: m.quota, value: formatMetric(totals.quota, METRIC.quota, display) },
    { key: 'count', title: m.count, value: formatMetric(totals.count, METRIC.count, display) },
    { key: 'tokens', title: m.tokens, value: formatMetric(totals.tokens, METRIC.tokens, display) },
    { key: 'rpm', title: m.rpm, value: formatRate(rates.rpm) },
    { key: 'tpm', title: m.tpm, value: formatRate(rates.tpm) },
  ];
  return (
    <Row gutter={[12, 12]}>
      {items.map((x) => (
        <Col key={x.key} xs={12} sm={8} lg={{ flex: '20%' }}>
          <Card size="small">
            <Statistic title={intl.formatMessage(x.title)} value={x.value} data-testid={`dashboard-summary-${x.key}`} />
          </Card>
        </Col>
      ))}
    </Row>
  );
}
