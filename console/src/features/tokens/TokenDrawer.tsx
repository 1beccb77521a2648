/** The side drawer that creates (also in batches) or edits a token. */
import { Button, Drawer, Flex, Form, Input, InputNumber, Select, Space, Switch } from 'antd';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { renderQuota, renderQuotaHint } from '../../shared/quota';
import { useQuotaDisplay } from '../status/useStatus';
import { useGetUserModelsQuery } from '../personal/api';
import { useCreateTokensMutation, useUpdateTokenMutation } from './api';
import { EXPIRY_PRESETS, TOKEN_COUNT_PRESETS, TOKEN_QUOTA_PRESETS } from './constants';
import { GroupSelect } from './GroupSelect';
import { form as m, tokens } from './messages';
import { expiryFromPreset, formValuesOf, INITIAL_TOKEN_FORM, toTokenInput, type TokenFormValues } from './rules';
import type { Token } from './types';

function PresetButtons<T extends string | number>({
  items,
  onPick,
  testId,
}: {
  items: readonly { value: T; label: string }[];
  onPick: (v: T) => void;
  testId: string;
}) {
  return (
    <Flex gap={4} wrap style={{ marginTop: 4 }}>
      {items.map((i) => (
        <Button key={String(i.value)} size="small" onClick={() => onPick(i.value)} data-testid={`${testId}-${i.value}`}>
          {i.label}
        </Button>
      ))}
    </Flex>
  );
}

function TokenForm({ token, onDone }: { token: Token | undefined; onDone: () => void }) {
  const intl = useIntl();
  const display = useQuotaDisplay();
  const [form] = Form.useForm<TokenFormValues>();
  const { data: models = [] } = useGetUserModelsQuery();
  const [create, { isLoading: creating }] = useCreateTokensMutation();
  const [update, { isLoading: updating }] = useUpdateTokenMutation();
  const unlimited = Form.useWatch('unlimited_quota', form) ?? false;
  const limits = Form.useWatch('model_limits_enabled', form) ?? false;
  const rateLimit = Form.useWatch('rate_limit_enabled', form) ?? false;
  const quota = Form.useWatch('remain_quota', form);
  const creatingNew = token === undefined;

  const onFinish = async (values: TokenFormValues) => {
    const v = { ...INITIAL_TOKEN_FORM, ...values };
    const res = toTokenInput(v, creatingNew);
    if ('problem' in res) {
      reportProblem(intl, res.problem);
      return;
    }
    if (creatingNew) {
      const created = await create(res.input)
        .unwrap()
        .catch(() => undefined);
      if (!created) return;
      toast.success(
        created.length > 1
          ? intl.formatMessage(tokens.createdMany, { count: created.length })
          : intl.formatMessage(tokens.created),
      );
    } else {
      const ok = await update({ ...res.input, id: token.id })
        .unwrap()
        .then(
          () => true,
          () => false,
        );
      if (!ok) return;
      toast.success(intl.formatMessage(tokens.updated));
    }
    onDone();
  };

  return (
    <Form<TokenFormValues>
      form={form}
      layout="vertical"
      requiredMark={false}
      initialValues={token ? formValuesOf(token) : INITIAL_TOKEN_FORM}
      onFinish={onFinish}
    >
      <Form.Item label={intl.formatMessage(m.name)} name="name">
        <Input placeholder={intl.formatMessage(m.namePlaceholder)} data-testid="token-name" />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.group)} name="group">
        <GroupSelect />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.expiry)}>
        <Form.Item name="expiry" noStyle>
          <Input placeholder={intl.formatMessage(m.expiryPlaceholder)} data-testid="token-expiry" />
        </Form.Item>
        <PresetButtons
          testId="token-expiry-preset"
          items={EXPIRY_PRESETS.map((p) => ({ value: p.key, label: intl.formatMessage(m[p.key]) }))}
          onPick={(key) => form.setFieldValue('expiry', expiryFromPreset(key, Date.now()))}
        />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.unlimited)} name="unlimited_quota" valuePropName="checked">
        <Switch data-testid="token-unlimited" />
      </Form.Item>
      {!unlimited && (
        <Form.Item label={intl.formatMessage(m.quota)} extra={renderQuotaHint(Number(quota) || 0, display.quotaPerUnit)}>
          <Form.Item name="remain_quota" noStyle>
            <InputNumber min={0} precision={0} style={{ width: '100%' }} data-testid="token-quota" />
          </Form.Item>
          <PresetButtons
            testId="token-quota-preset"
            items={TOKEN_QUOTA_PRESETS.map((q) => ({
              value: q,
              label: renderQuota(q, { ...display, displayInCurrency: true }, 0),
            }))}
            onPick={(q) => form.setFieldValue('remain_quota', q)}
          />
        </Form.Item>
      )}
      {creatingNew && (
        <Form.Item label={intl.formatMessage(m.count)} extra={intl.formatMessage(m.countHint)}>
          <Form.Item name="count" noStyle>
            <InputNumber min={1} precision={0} style={{ width: '100%' }} data-testid="token-count" />
          </Form.Item>
          <PresetButtons
            testId="token-count-preset"
            items={TOKEN_COUNT_PRESETS.map((c) => ({ value: c, label: String(c) }))}
            onPick={(c) => form.setFieldValue('count', c)}
          />
        </Form.Item>
      )}
      <Form.Item label={intl.formatMessage(m.modelLimits)} name="model_limits_enabled" valuePropName="checked">
        <Switch data-testid="token-model-limits-enabled" />
      </Form.Item>
      {limits && (
        <Form.Item name="model_limits">
          <Select
            mode="multiple"
            allowClear
            placeholder={intl.formatMessage(m.modelLimitsPlaceholder)}
            options={models.map((x) => ({ value: x, label: x }))}
            data-testid="token-model-limits"
          />
        </Form.Item>
      )}
      <Form.Item label={intl.formatMessage(m.allowIps)} name="allow_ips">
        <Input.TextArea
          autoSize={{ minRows: 2, maxRows: 6 }}
          placeholder={intl.formatMessage(m.allowIpsPlaceholder)}
          data-testid="token-allow-ips"
        />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.rateLimit)} name="rate_limit_enabled" valuePropName="checked">
        <Switch data-testid="token-rate-limit" />
      </Form.Item>
      {rateLimit && (
        <Space wrap align="start">
          <Form.Item label={intl.formatMessage(m.ratePeriod)} name="rate_limit_period">
            <InputNumber min={1} precision={0} />
          </Form.Item>
          <Form.Item label={intl.formatMessage(m.rateCount)} name="rate_limit_count">
            <InputNumber min={0} precision={0} />
          </Form.Item>
          <Form.Item label={intl.formatMessage(m.rateSuccess)} name="rate_limit_success">
            <InputNumber min={1} precision={0} />
          </Form.Item>
        </Space>
      )}
      <Button type="primary" htmlType="submit" block loading={creating || updating} data-testid="token-submit">
        {intl.formatMessage(common.submit)}
      </Button>
    </Form>
  );
}

/** `token` undefined with `open`: create; a token: edit it. */
export function TokenDrawer({ open, token, onClose }: { open: boolean; token: Token | undefined; onClose: () => void }) {
  const intl = useIntl();
  return (
    <Drawer open={open} onClose={onClose} title={intl.formatMessage(token ? m.editTitle : m.addTitle)} size={480} destroyOnHidden>
      <TokenForm key={token?.id ?? 'new'} token={token} onDone={onClose} />
    </Drawer>
  );
}
