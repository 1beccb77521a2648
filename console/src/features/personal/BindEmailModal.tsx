import { Form, Input, Modal } from 'antd';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { succeeded } from '../../shared/succeeded';
import { validateBindEmail } from '../../shared/validation';
import { EmailCodeField } from '../auth/EmailCodeField';
import { register as rm } from '../auth/messages';
import { useBindEmailMutation } from './api';
import { bindings as m } from './messages';

interface Values {
  email?: string;
  code?: string;
}

export function BindEmailModal({ onClose }: { onClose: () => void }) {
  const intl = useIntl();
  const [form] = Form.useForm<Values>();
  const [bind, { isLoading }] = useBindEmailMutation();
  const onOk = async () => {
    const v = form.getFieldsValue();
    if (reportProblem(intl, validateBindEmail(v))) return;
    if (await succeeded(bind({ email: v.email!.trim(), code: v.code!.trim() }))) {
      toast.success(intl.formatMessage(m.emailBound));
      onClose();
    }
  };
  return (
    <Modal open onCancel={onClose} onOk={onOk} confirmLoading={isLoading} title={intl.formatMessage(m.bindEmailTitle)}>
      <Form form={form} layout="vertical">
        <EmailCodeField form={form} label={intl.formatMessage(m.email)} />
        <Form.Item label={intl.formatMessage(rm.code)} name="code">
          <Input />
        </Form.Item>
      </Form>
    </Modal>
  );
}
