/** The redeem-code box (prefilled from ?code=) and the link to buy a code. */
import { Button, Card, Input, Space } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { useSearchParams } from 'react-router';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { renderQuota } from '../../shared/quota';
import { useQuotaDisplay, useStatus } from '../status/useStatus';
import { useRedeemCodeMutation } from './api';
import { redeem as m } from './messages';
import { validateRedeemCode, validateTopUpLink } from './rules';

export function RedeemCard() {
  const intl = useIntl();
  const display = useQuotaDisplay();
  const { status } = useStatus();
  const [params] = useSearchParams();
  const [code, setCode] = useState(() => params.get('code') ?? '');
  const [redeemCode, { isLoading }] = useRedeemCodeMutation();

  const onRedeem = async () => {
    if (reportProblem(intl, validateRedeemCode(code))) return;
    const res = await redeemCode(code.trim())
      .unwrap()
      .catch(() => undefined);
    if (!res) return;
    toast.success(intl.formatMessage(m.success, { amount: renderQuota(res.quota, display) }));
    setCode('');
  };
  const onBuy = () => {
    if (reportProblem(intl, validateTopUpLink(status.top_up_link))) return;
    window.open(status.top_up_link, '_blank', 'noopener');
  };

  return (
    <Card title={intl.formatMessage(m.title)}>
      <Space.Compact style={{ width: '100%' }}>
        <Input
          allowClear
          value={code}
          onChange={(e) => setCode(e.target.value)}
          onPressEnter={onRedeem}
          placeholder={intl.formatMessage(m.placeholder)}
          data-testid="wallet-redeem-code"
        />
        <Button type="primary" onClick={onRedeem} loading={isLoading} data-testid="wallet-redeem-submit">
          {intl.formatMessage(m.submit)}
        </Button>
      </Space.Compact>
      <Button type="link" onClick={onBuy} style={{ paddingInline: 0, marginTop: 8 }} data-testid="wallet-buy-code">
        {intl.formatMessage(m.buy)}
      </Button>
    </Card>
  );
}
