/** The user's balance, used quota and request count (GET /api/user/self). */
import { Card, Col, Row, Statistic, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { renderQuota } from '../../shared/quota';
import { useGetSelfQuery } from '../personal/api';
import { useQuotaDisplay } from '../status/useStatus';
import { wallet as m } from './messages';

export function BalanceCard() {
  const intl = useIntl();
  const display = useQuotaDisplay();
  const { data: self, isLoading } = useGetSelfQuery();
  return (
    <Card loading={isLoading} data-testid="wallet-balance-card">
      <Row gutter={16}>
        <Col xs={24} sm={8}>
          <Statistic
            title={intl.formatMessage(m.balance)}
            value={self ? renderQuota(self.quota, display) : '-'}
            data-testid="wallet-balance"
          />
          {self && (
            <Typography.Text type="secondary" data-testid="wallet-balance-quota" data-quota={self.quota}>
              {intl.formatMessage(m.quotaUnits, { quota: intl.formatNumber(self.quota) })}
            </Typography.Text>
          )}
        </Col>
        <Col xs={12} sm={8}>
          <Statistic
            title={intl.formatMessage(m.used)}
            value={self ? renderQuota(self.used_quota, display) : '-'}
            data-testid="wallet-used"
            data-quota={self?.used_quota}
          />
        </Col>
        <Col xs={12} sm={8}>
          <Statistic title={intl.formatMessage(m.requests)} value={self?.request_count ?? '-'} />
        </Col>
      </Row>
    </Card>
  );
}
