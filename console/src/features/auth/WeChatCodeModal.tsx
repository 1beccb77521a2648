import { Flex, Image, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { login as m } from './messages';

interface Props {
  title: string;
  qr?: string;
  loading: boolean;
  onClose: () => void;
  /** Sends the code; answers whether the modal may close. */
  onSubmit: (code: string) => Promise<boolean>;
}

/** The messaging-app QR code plus verification-code modal, for login and for binding. */
export function WeChatCodeModal({ title, qr, loading, onClose, onSubmit }: Props) {
  const intl = useIntl();
  const [code, setCode] = useState('');
  const onOk = async () => {
    if (await onSubmit(code.trim())) onClose();
  };
  return (
    <Modal open onCancel={onClose} onOk={onOk} confirmLoading={loading} title={title}>
      <Flex vertical align="center" gap={8}>
        {qr && <Image src={qr} width={200} preview={false} />}
        <Typography.Text type="secondary">{intl.formatMessage(m.wechatHint)}</Typography.Text>
        <Input value={code} onChange={(e) => setCode(e.target.value)} placeholder={intl.formatMessage(m.wechatCode)} />
      </Flex>
    </Modal>
  );
}
