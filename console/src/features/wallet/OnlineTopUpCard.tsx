/** Online top-up: amount, payable quote, payment method, confirm dialog, then the provider's form is submitted. */
import { Alert, Button, Card, Descriptions, Flex, InputNumber, Modal, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { useStatus } from '../status/useStatus';
import { useQuoteTopUpMutation, useStartPaymentMutation } from './api';
import { MIN_AMOUNT, PAYMENT_METHOD, QUOTE_DELAY_MS, type PaymentMethod } from './constants';
import { errors, topUp as m } from './messages';
import { floorAmount, payableOf, paymentForm, validateOnlineTopUp, validateTopUpAmount } from './rules';

const METHOD_LABEL = { [PAYMENT_METHOD.alipay]: m.alipay, [PAYMENT_METHOD.wechat]: m.wechat } as const;

/** Asks for the money to pay for `amount` (after a pause in typing); 0 after a failed quote. */
function usePayable(amount: number, enabled: boolean, minTopUp: number): string {
  const [quote] = useQuoteTopUpMutation();
  const [payable, setPayable] = useState('0');
  useEffect(() => {
    if (!enabled || validateTopUpAmount(amount, minTopUp)) return undefined;
    let live = true;
    const t = window.setTimeout(() => {
      quote({ amount, top_up_code: '' })
        .unwrap()
        .then(
          (q) => live && setPayable(payableOf(q)),
          () => live && setPayable(payableOf(undefined)),
        );
    }, QUOTE_DELAY_MS);
    return () => {
      live = false;
      window.clearTimeout(t);
    };
  }, [amount, enabled, minTopUp, quote]);
  return enabled && !validateTopUpAmount(amount, minTopUp) ? payable : '0';
}

export function OnlineTopUpCard() {
  const intl = useIntl();
  const { status } = useStatus();
  const enabled = status.enable_online_topup ?? false;
  const minTopUp = Math.max(MIN_AMOUNT, status.min_topup ?? MIN_AMOUNT);
  const [amount, setAmount] = useState(minTopUp);
  const [method, setMethod] = useState<PaymentMethod | undefined>();
  const payable = usePayable(amount, enabled, minTopUp);
  const [pay, { isLoading }] = useStartPaymentMutation();

  const choose = (pm: PaymentMethod) => {
    if (reportProblem(intl, validateOnlineTopUp(enabled))) return;
    if (reportProblem(intl, validateTopUpAmount(amount, status.min_topup))) return;
    setMethod(pm);
  };
  const onConfirm = async () => {
    if (!method) return;
    const res = await pay({ amount, top_up_code: '', payment_method: method })
      .unwrap()
      .catch(() => undefined);
    if (!res) return;
    if (!res.url) {
      toast.error(intl.formatMessage(errors.payFailed));
      return;
    }
    const form = paymentForm(document, res.url, res.fields);
    document.body.appendChild(form);
    form.submit();
    form.remove();
    setMethod(undefined);
  };

  return (
    <Card title={intl.formatMessage(m.title)}>
      {!enabled && <Alert type="info" showIcon title={intl.formatMessage(m.disabled)} style={{ marginBottom: 12 }} />}
      <Flex gap={12} wrap align="center">
        <InputNumber
          min={MIN_AMOUNT}
          precision={0}
          value={amount}
          onChange={(v) => setAmount(floorAmount(v))}
          addonBefore={intl.formatMessage(m.amount)}
          style={{ width: 220 }}
          data-testid="wallet-topup-amount"
        />
        <Typography.Text type="secondary">{intl.formatMessage(m.amountHint, { min: minTopUp })}</Typography.Text>
        <Typography.Text strong data-testid="wallet-topup-payable">
          {intl.formatMessage(m.payable, { money: payable })}
        </Typography.Text>
      </Flex>
      <Flex gap={8} style={{ marginTop: 12 }}>
        {Object.values(PAYMENT_METHOD).map((pm) => (
          <Button key={pm} onClick={() => choose(pm)} data-testid={`wallet-pay-${pm}`}>
            {intl.formatMessage(METHOD_LABEL[pm])}
          </Button>
        ))}
      </Flex>
      <Modal
        open={method !== undefined}
        title={intl.formatMessage(m.confirmTitle)}
        okText={intl.formatMessage(m.confirmOk)}
        onOk={onConfirm}
        confirmLoading={isLoading}
        onCancel={() => setMethod(undefined)}
      >
        <Descriptions
          column={1}
          size="small"
          items={[
            { key: 'amount', label: intl.formatMessage(m.confirmAmount), children: amount },
            { key: 'payable', label: intl.formatMessage(m.confirmPayable), children: payable },
            {
              key: 'method',
              label: intl.formatMessage(m.confirmMethod),
              children: method ? intl.formatMessage(METHOD_LABEL[method]) : '',
            },
          ]}
        />
      </Modal>
    </Card>
  );
}
