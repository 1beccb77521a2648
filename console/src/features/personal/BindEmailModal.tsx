import { Button, Form, Input, Modal, Space } from 'antd';
import { useIntl } from 'react-intl';
import { EMAIL_CODE_COOLDOWN_SECONDS } from '../../shared/constants';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { useCooldown } from '../../shared/useCooldown';
import { validateBindEmail, validateEmailForCode } from '../../shared/validation';
import { useSendVerificationMutation } from '../auth/api';
import { register as rm } from '../auth/messages';
import { useBindEmailMutation } from './api';
import { bindings as m } from './messages';

interface Values {
  email?: string;
  code?: string;
}

export function BindEmailModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const intl = useIntl();
  const [form] = Form.useForm<Values>();
  const [sendCode, { isLoading: sending }] = useSendVerificationMutation();
  const [bind, { isLoading }] = useBindEmailMutation();
  const [cooldown, start] = useCooldown(EMAIL_CODE_COOLDOWN_SECONDS);

  const onSend = async () => {
    const email = form.getFieldValue('email') as string | undefined;
    if (reportProblem(intl, validateEmailForCode(email))) return;
    const ok = await sendCode({ email: email!.trim() }).unwrap().then(() => true, () => false);
    if (ok) {
      toast.success(intl.formatMessage(rm.codeSent));
      start();
    }
  };
  const onOk = async () => {
    const v = form.getFieldsValue();
    if (reportProblem(intl, validateBindEmail(v))) return;
    const ok = await bind({ email: v.email!.trim(), code: v.code!.trim() }).unwrap().then(() => true, () => false);
    if (ok) {
      toast.success(intl.formatMessage(m.emailBound));
      onClose();
    }
  };
  return (
    <Modal open={open} onCancel={onClose} onOk={onOk} confirmLoading={isLoading} title={intl.formatMessage(m.bindEmailTitle)}>
      <Form form={form} layout="vertical">
        <Form.Item label={intl.formatMessage(m.email)}>
          <Space.Compact style={{ width: '100%' }}>
            <Form.Item name="email" noStyle>
              <Input type="email" />
            </Form.Item>
            <Button onClick={onSend} loading={sending} disabled={cooldown > 0}>
              {cooldown > 0 ? intl.formatMessage(rm.resend, { n: cooldown }) : intl.formatMessage(rm.getCode)}
            </Button>
          </Space.Compact>
        </Form.Item>
        <Form.Item label={intl.formatMessage(rm.code)} name="code">
          <Input />
        </Form.Item>
      </Form>
    </Modal>
  );
}
