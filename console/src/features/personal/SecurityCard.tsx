import { Button, Card, Form, Input, Modal, Space, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import type { User } from '../../api/types';
import { useSignOut } from '../../app/useSignOut';
import { copyWithFallback } from '../../shared/clipboard';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { validateChangePassword, validateSelfDelete } from '../../shared/validation';
import { useDeleteSelfMutation, useGenerateAccessTokenMutation, useUpdateSelfMutation } from './api';
import { security as m } from './messages';
import { succeeded } from '../../shared/succeeded';

interface PasswordValues {
  originalPassword?: string;
  password?: string;
  password2?: string;
}

function ChangePasswordModal({ onClose }: { onClose: () => void }) {
  const intl = useIntl();
  const [form] = Form.useForm<PasswordValues>();
  const [update, { isLoading }] = useUpdateSelfMutation();
  const onOk = async () => {
    const v = form.getFieldsValue();
    if (reportProblem(intl, validateChangePassword(v))) return;
    const ok = await succeeded(update({ password: v.password!, original_password: v.originalPassword ?? '' }));
    if (ok) {
      toast.success(intl.formatMessage(m.passwordChanged));
      onClose();
    }
  };
  return (
    <Modal open onCancel={onClose} onOk={onOk} confirmLoading={isLoading} title={intl.formatMessage(m.changePassword)}>
      <Form form={form} layout="vertical">
        <Form.Item label={intl.formatMessage(m.originalPassword)} name="originalPassword">
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item label={intl.formatMessage(m.newPassword)} name="password">
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item label={intl.formatMessage(m.newPassword2)} name="password2">
          <Input.Password autoComplete="new-password" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

function AccessTokenModal({ onClose }: { onClose: () => void }) {
  const intl = useIntl();
  const [generate, { data, isLoading }] = useGenerateAccessTokenMutation();
  const onGenerate = async () => {
    const token = await generate()
      .unwrap()
      .catch(() => undefined);
    if (typeof token === 'string') await copyWithFallback(intl, token, intl.formatMessage(m.tokenCopied));
  };
  return (
    <Modal open onCancel={onClose} footer={null} title={intl.formatMessage(m.accessToken)}>
      <Typography.Paragraph>{intl.formatMessage(m.accessTokenHint)}</Typography.Paragraph>
      {data && (
        <Typography.Paragraph code copyable data-testid="access-token">
          {data}
        </Typography.Paragraph>
      )}
      <Button type="primary" onClick={onGenerate} loading={isLoading}>
        {intl.formatMessage(m.accessToken)}
      </Button>
    </Modal>
  );
}

function DeleteAccountModal({ user, onClose }: { user: User; onClose: () => void }) {
  const intl = useIntl();
  const signOut = useSignOut();
  const [typed, setTyped] = useState('');
  const [remove, { isLoading }] = useDeleteSelfMutation();
  const onOk = async () => {
    if (reportProblem(intl, validateSelfDelete(typed, user.username))) return;
    const ok = await succeeded(remove());
    if (ok) {
      toast.success(intl.formatMessage(m.deleted));
      await signOut();
    }
  };
  return (
    <Modal
      open
      onCancel={onClose}
      onOk={onOk}
      confirmLoading={isLoading}
      okButtonProps={{ danger: true }}
      title={intl.formatMessage(m.deleteAccount)}
    >
      <Typography.Paragraph type="danger">
        {intl.formatMessage(m.deleteWarning, { username: user.username })}
      </Typography.Paragraph>
      <Input value={typed} onChange={(e) => setTyped(e.target.value)} />
    </Modal>
  );
}

type Dialog = 'password' | 'token' | 'delete' | null;

export function SecurityCard({ user }: { user: User }) {
  const intl = useIntl();
  const [dialog, setDialog] = useState<Dialog>(null);
  const close = () => setDialog(null);
  return (
    <Card title={intl.formatMessage(m.title)} data-testid="security-card">
      <Space wrap>
        <Button onClick={() => setDialog('password')}>{intl.formatMessage(m.changePassword)}</Button>
        <Button onClick={() => setDialog('token')}>{intl.formatMessage(m.accessToken)}</Button>
        <Button danger onClick={() => setDialog('delete')}>
          {intl.formatMessage(m.deleteAccount)}
        </Button>
      </Space>
      {dialog === 'password' && <ChangePasswordModal onClose={close} />}
      {dialog === 'token' && <AccessTokenModal onClose={close} />}
      {dialog === 'delete' && <DeleteAccountModal user={user} onClose={close} />}
    </Card>
  );
}
