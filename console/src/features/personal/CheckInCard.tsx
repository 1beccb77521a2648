import { Button, Card, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { quotaToDollars } from '../../shared/quota';
import { useQuotaDisplay } from '../status/useStatus';
import { useCheckInMutation, useGetCheckInStatusQuery } from './api';
import { checkIn as m } from './messages';

export function CheckInCard() {
  const intl = useIntl();
  const { quotaPerUnit } = useQuotaDisplay();
  const { data, isError, isLoading } = useGetCheckInStatusQuery();
  const [checkIn, { isLoading: busy }] = useCheckInMutation();
  const onCheckIn = async () => {
    const res = await checkIn()
      .unwrap()
      .catch(() => undefined);
    if (!res) {
      toast.error(intl.formatMessage(m.failed));
      return;
    }
    toast.success(intl.formatMessage(m.success, { amount: `$${quotaToDollars(res.quota, quotaPerUnit).toFixed(2)}` }));
  };
  return (
    <Card title={intl.formatMessage(m.title)} loading={isLoading} data-testid="checkin-card">
      {isError ? (
        <Typography.Text type="secondary">{intl.formatMessage(m.unavailable)}</Typography.Text>
      ) : (
        <Button type="primary" onClick={onCheckIn} loading={busy} disabled={!data?.can_check_in}>
          {intl.formatMessage(data?.can_check_in ? m.action : m.done)}
        </Button>
      )}
    </Card>
  );
}
