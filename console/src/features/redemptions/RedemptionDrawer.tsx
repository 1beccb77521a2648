/** The side drawer that creates redemption codes or edits an unused one. */
import { Button, DatePicker, Drawer, Form, Input, InputNumber, Switch } from 'antd';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { renderQuotaHint } from '../../shared/quota';
import { useQuotaDisplay } from '../status/useStatus';
import { useCreateRedemptionsMutation, useUpdateRedemptionMutation } from './api';
import { MAX_REDEMPTION_COUNT, REDEMPTION_TIME_FORMAT, UNLIMITED_USES } from './constants';
import { form as m, redemptions } from './messages';
import { formValuesOf, INITIAL_REDEMPTION_FORM, toCodeInput, type RedemptionFormValues } from './rules';
import type { Redemption } from './types';

interface FormProps {
  code: Redemption | undefined;
  onCreated: (codes: string[], name: string) => void;
  onDone: () => void;
}

function RedemptionForm({ code, onCreated, onDone }: FormProps) {
  const intl = useIntl();
  const display = useQuotaDisplay();
  const [form] = Form.useForm<RedemptionFormValues>();
  const [create, { isLoading: creating }] = useCreateRedemptionsMutation();
  const [update, { isLoading: updating }] = useUpdateRedemptionMutation();
  const isGift = Form.useWatch('is_gift', form) ?? false;
  const quota = Form.useWatch('quota', form);
  const creatingNew = code === undefined;

  const onFinish = async (values: RedemptionFormValues) => {
    const res = toCodeInput({ ...INITIAL_REDEMPTION_FORM, ...values }, creatingNew, display);
    if ('problem' in res) {
      reportProblem(intl, res.problem);
      return;
    }
    if (creatingNew) {
      const keys = await create(res.input)
        .unwrap()
        .catch(() => undefined);
      if (!keys) return;
      toast.success(intl.formatMessage(redemptions.created));
      onCreated(keys, res.input.name ?? '');
    } else {
      const ok = await update({ ...res.input, id: code.id })
        .unwrap()
        .then(
          () => true,
          () => false,
        );
      if (!ok) return;
      toast.success(intl.formatMessage(redemptions.updated));
    }
    onDone();
  };

  return (
    <Form<RedemptionFormValues>
      form={form}
      layout="vertical"
      requiredMark={false}
      initialValues={code ? formValuesOf(code) : INITIAL_REDEMPTION_FORM}
      onFinish={onFinish}
    >
      <Form.Item label={intl.formatMessage(m.name)} name="name">
        <Input placeholder={intl.formatMessage(m.namePlaceholder)} data-testid="redemption-name" />
      </Form.Item>
      <Form.Item
        label={intl.formatMessage(m.quota)}
        name="quota"
        extra={renderQuotaHint(Number(quota) || 0, display.quotaPerUnit)}
      >
        <InputNumber min={1} precision={0} style={{ width: '100%' }} data-testid="redemption-quota" />
      </Form.Item>
      {creatingNew && (
        <>
          <Form.Item label={intl.formatMessage(m.count)} name="count">
            <InputNumber
              min={1}
              max={MAX_REDEMPTION_COUNT}
              precision={0}
              style={{ width: '100%' }}
              data-testid="redemption-count"
            />
          </Form.Item>
          <Form.Item label={intl.formatMessage(m.key)} name="key">
            <Input placeholder={intl.formatMessage(m.keyPlaceholder)} data-testid="redemption-custom-key" />
          </Form.Item>
        </>
      )}
      <Form.Item label={intl.formatMessage(m.gift)} name="is_gift" valuePropName="checked" extra={intl.formatMessage(m.giftHint)}>
        <Switch data-testid="redemption-gift" />
      </Form.Item>
      {isGift && (
        <Form.Item label={intl.formatMessage(m.maxUses)} name="max_uses">
          <InputNumber
            min={UNLIMITED_USES}
            precision={0}
            style={{ width: '100%' }}
            placeholder={intl.formatMessage(m.maxUsesPlaceholder)}
            data-testid="redemption-max-uses"
          />
        </Form.Item>
      )}
      <Form.Item label={intl.formatMessage(m.validFrom)} name="valid_from">
        <DatePicker showTime format={REDEMPTION_TIME_FORMAT} style={{ width: '100%' }} data-testid="redemption-valid-from" />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.validUntil)} name="valid_until">
        <DatePicker showTime format={REDEMPTION_TIME_FORMAT} style={{ width: '100%' }} data-testid="redemption-valid-until" />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={creating || updating} data-testid="redemption-submit">
        {intl.formatMessage(common.submit)}
      </Button>
    </Form>
  );
}

export function RedemptionDrawer({
  open,
  code,
  onClose,
  onCreated,
}: {
  open: boolean;
  code: Redemption | undefined;
  onClose: () => void;
  onCreated: (codes: string[], name: string) => void;
}) {
  const intl = useIntl();
  return (
    <Drawer open={open} onClose={onClose} title={intl.formatMessage(code ? m.editTitle : m.addTitle)} size={460} destroyOnHidden>
      <RedemptionForm key={code?.id ?? 'new'} code={code} onCreated={onCreated} onDone={onClose} />
    </Drawer>
  );
}
