import { AutoComplete, Button, Card, Form, Input, Radio, Switch, Typography } from 'antd';
import { useIntl } from 'react-intl';
import type { User } from '../../api/types';
import { NOTIFY_TYPE, WARNING_THRESHOLD_PRESETS } from '../../shared/constants';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { renderQuotaHint } from '../../shared/quota';
import { validateWebhookUrl } from '../../shared/validation';
import { useQuotaDisplay } from '../status/useStatus';
import { useUpdateUserSettingMutation } from './api';
import { notify as m, price as pm } from './messages';
import { parseUserSetting, type FullUserSetting } from './userSetting';
import { succeeded } from '../../shared/succeeded';

function useSaveSetting() {
  const intl = useIntl();
  const [update, state] = useUpdateUserSettingMutation();
  const save = async (s: FullUserSetting) => {
    if (s.notify_type === NOTIFY_TYPE.webhook && reportProblem(intl, validateWebhookUrl(s.webhook_url))) return;
    const ok = await succeeded(update(s));
    if (ok) toast.success(intl.formatMessage(m.saved));
    else toast.error(intl.formatMessage(m.failed));
  };
  return [save, state.isLoading] as const;
}

export function NotificationCard({ user }: { user: User }) {
  const intl = useIntl();
  const { quotaPerUnit } = useQuotaDisplay();
  const initial = parseUserSetting(user.setting);
  const [form] = Form.useForm<FullUserSetting>();
  const type = Form.useWatch('notify_type', form) ?? initial.notify_type;
  const [save, saving] = useSaveSetting();
  const onFinish = (v: FullUserSetting) =>
    save({ ...initial, ...v, quota_warning_threshold: Math.trunc(Number(v.quota_warning_threshold)) || 0 });
  return (
    <Card title={intl.formatMessage(m.title)} data-testid="notification-card">
      <Form<FullUserSetting> form={form} layout="vertical" initialValues={initial} onFinish={onFinish}>
        <Form.Item label={intl.formatMessage(m.type)} name="notify_type">
          <Radio.Group
            options={[
              { value: NOTIFY_TYPE.email, label: intl.formatMessage(m.typeEmail) },
              { value: NOTIFY_TYPE.webhook, label: intl.formatMessage(m.typeWebhook) },
            ]}
          />
        </Form.Item>
        <Form.Item label={intl.formatMessage(m.threshold)} name="quota_warning_threshold">
          <AutoComplete
            options={WARNING_THRESHOLD_PRESETS.map((v) => ({
              value: String(v),
              label: `${v} (${renderQuotaHint(v, quotaPerUnit)})`,
            }))}
          />
        </Form.Item>
        {type === NOTIFY_TYPE.webhook ? (
          <>
            <Form.Item label={intl.formatMessage(m.webhookUrl)} name="webhook_url" extra={intl.formatMessage(m.webhookHelp)}>
              <Input placeholder="https://" />
            </Form.Item>
            <Form.Item label={intl.formatMessage(m.webhookSecret)} name="webhook_secret">
              <Input.Password autoComplete="off" />
            </Form.Item>
          </>
        ) : (
          <Form.Item label={intl.formatMessage(m.email)} name="notification_email">
            <Input type="email" />
          </Form.Item>
        )}
        <Button type="primary" htmlType="submit" loading={saving}>
          {intl.formatMessage(common.save)}
        </Button>
      </Form>
    </Card>
  );
}

export function PriceSettingsCard({ user }: { user: User }) {
  const intl = useIntl();
  const initial = parseUserSetting(user.setting);
  const [save, saving] = useSaveSetting();
  return (
    <Card title={intl.formatMessage(pm.title)} data-testid="price-card">
      <Typography.Paragraph>{intl.formatMessage(pm.acceptUnset)}</Typography.Paragraph>
      <Switch
        checked={initial.accept_unset_model_ratio_model}
        loading={saving}
        onChange={(checked) => save({ ...initial, accept_unset_model_ratio_model: checked })}
      />
    </Card>
  );
}
