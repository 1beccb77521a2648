import { Button, Drawer, Form, Input } from 'antd';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { validateNewUser } from '../../shared/validation';
import { useCreateUserMutation, type NewUser } from './api';
import { form as m, users } from './messages';
import { succeeded } from '../../shared/succeeded';

export function AddUserDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const intl = useIntl();
  const [form] = Form.useForm<NewUser>();
  const [create, { isLoading }] = useCreateUserMutation();
  const onFinish = async (v: NewUser) => {
    if (reportProblem(intl, validateNewUser(v))) return;
    const ok = await succeeded(create({ ...v, username: (v.username ?? '').trim(), display_name: v.display_name ?? '' }));
    if (ok) {
      toast.success(intl.formatMessage(users.created));
      form.resetFields();
      onClose();
    }
  };
  return (
    <Drawer open={open} onClose={onClose} title={intl.formatMessage(m.addTitle)} size={420} destroyOnHidden>
      <Form form={form} layout="vertical" onFinish={onFinish} requiredMark={false}>
        <Form.Item label={intl.formatMessage(m.username)} name="username">
          <Input data-testid="add-user-username" />
        </Form.Item>
        <Form.Item label={intl.formatMessage(m.displayName)} name="display_name">
          <Input data-testid="add-user-display-name" />
        </Form.Item>
        <Form.Item label={intl.formatMessage(m.password)} name="password">
          <Input.Password autoComplete="new-password" data-testid="add-user-password" />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={isLoading} block data-testid="add-user-submit">
          {intl.formatMessage(common.submit)}
        </Button>
      </Form>
    </Drawer>
  );
}
