import { Button, Descriptions, Drawer, Form, Input, InputNumber, Modal, Select, Space, Spin, Typography } from 'antd';
import { useState } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import type { User } from '../../api/types';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { renderQuotaHint } from '../../shared/quota';
import { validateEditUserPassword } from '../../shared/validation';
import { useQuotaDisplay } from '../status/useStatus';
import { useGetGroupsQuery, useGetUserQuery, useUpdateUserMutation } from './api';
import { bindings as bindingLabels } from '../personal/messages';
import { form as m, users } from './messages';
import { succeeded } from '../../shared/succeeded';
import { toUserUpdate, type UserFormValues as Values } from './update';

/** The bound third-party ids: shown, never edited by an admin (spec 1 §2). */
const BINDINGS: [keyof User, MessageDescriptor][] = [
  ['github_id', bindingLabels.github],
  ['oidc_id', bindingLabels.oidc],
  ['wechat_id', bindingLabels.wechat],
  ['telegram_id', bindingLabels.telegram],
  ['linux_do_id', bindingLabels.linuxdo],
];

function AddQuotaModal({ open, onClose, onAdd }: { open: boolean; onClose: () => void; onAdd: (n: number) => void }) {
  const intl = useIntl();
  const { quotaPerUnit } = useQuotaDisplay();
  const [amount, setAmount] = useState<number | null>(0);
  return (
    <Modal
      open={open}
      onCancel={onClose}
      title={intl.formatMessage(m.addQuota)}
      onOk={() => {
        onAdd(Math.trunc(amount ?? 0));
        onClose();
      }}
    >
      <Typography.Text>{intl.formatMessage(m.addQuotaAmount)}</Typography.Text>
      <InputNumber
        style={{ width: '100%' }}
        precision={0}
        value={amount}
        onChange={setAmount}
        addonAfter={renderQuotaHint(amount ?? 0, quotaPerUnit)}
      />
    </Modal>
  );
}

function EditForm({ user, onClose }: { user: User; onClose: () => void }) {
  const intl = useIntl();
  const [form] = Form.useForm<Values>();
  const { data: groups = [] } = useGetGroupsQuery();
  const [update, { isLoading }] = useUpdateUserMutation();
  const { quotaPerUnit } = useQuotaDisplay();
  const [addOpen, setAddOpen] = useState(false);
  const quota = Form.useWatch('quota', form) ?? user.quota;

  const onFinish = async (v: Values) => {
    if (reportProblem(intl, validateEditUserPassword(v.password ?? undefined))) return;
    const ok = await succeeded(update(toUserUpdate(user, v)));
    if (ok) {
      toast.success(intl.formatMessage(users.updated));
      onClose();
    }
  };
  return (
    <Form<Values>
      form={form}
      layout="vertical"
      onFinish={onFinish}
      requiredMark={false}
      initialValues={{
        username: user.username,
        display_name: user.display_name,
        password: '',
        group: user.group,
        quota: user.quota,
        email: user.email,
        remark: user.remark,
      }}
    >
      <Form.Item label={intl.formatMessage(m.username)} name="username">
        <Input />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.displayName)} name="display_name">
        <Input data-testid="edit-user-display-name" />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.password)} name="password">
        <Input.Password
          autoComplete="new-password"
          placeholder={intl.formatMessage(m.passwordHint)}
          data-testid="edit-user-password"
        />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.group)} name="group">
        <Select showSearch options={groups.map((g) => ({ value: g, label: g }))} />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.quota)} extra={renderQuotaHint(Number(quota) || 0, quotaPerUnit)}>
        <Space.Compact style={{ width: '100%' }}>
          <Form.Item name="quota" noStyle>
            <InputNumber precision={0} style={{ width: '100%' }} data-testid="edit-user-quota" />
          </Form.Item>
          <Button onClick={() => setAddOpen(true)}>{intl.formatMessage(m.addQuota)}</Button>
        </Space.Compact>
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.email)} name="email">
        <Input />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.remark)} name="remark">
        <Input />
      </Form.Item>
      <Descriptions
        size="small"
        column={1}
        title={intl.formatMessage(m.bindings)}
        style={{ marginBottom: 16 }}
        items={BINDINGS.map(([k, label]) => ({
          key: k,
          label: intl.formatMessage(label),
          children: String(user[k] || intl.formatMessage(m.unbound)),
        }))}
      />
      <Button type="primary" htmlType="submit" block loading={isLoading} data-testid="edit-user-submit">
        {intl.formatMessage(common.submit)}
      </Button>
      <AddQuotaModal
        open={addOpen}
        onClose={() => setAddOpen(false)}
        onAdd={(n) => form.setFieldValue('quota', (Number(form.getFieldValue('quota')) || 0) + n)}
      />
    </Form>
  );
}

export function EditUserDrawer({ id, onClose }: { id: number | undefined; onClose: () => void }) {
  const intl = useIntl();
  const { data, isFetching } = useGetUserQuery(id ?? 0, { skip: id === undefined, refetchOnMountOrArgChange: true });
  return (
    <Drawer open={id !== undefined} onClose={onClose} title={intl.formatMessage(m.editTitle)} size={460} destroyOnHidden>
      {isFetching || !data ? <Spin /> : <EditForm key={data.id} user={data} onClose={onClose} />}
    </Drawer>
  );
}
