import { Flex, Modal, Spin, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { succeeded } from '../../shared/succeeded';
import type { TelegramUser } from '../auth/telegram';
import { TelegramLoginWidget } from '../auth/TelegramLoginWidget';
import { useBindTelegramMutation } from './api';
import { bindings as m } from './messages';

/** Binds a Telegram account: the Login Widget (loaded with the modal), then GET /api/oauth/telegram/bind. */
export function TelegramBindModal({ botName, onClose }: { botName: string; onClose: () => void }) {
  const intl = useIntl();
  const [bind, { isLoading }] = useBindTelegramMutation();
  const onAuth = async (user: TelegramUser) => {
    if (await succeeded(bind(user))) {
      toast.success(intl.formatMessage(m.telegramBound));
      onClose();
    }
  };
  return (
    <Modal open onCancel={onClose} footer={null} title={intl.formatMessage(m.telegramTitle)}>
      <Flex vertical align="center" gap={12}>
        <Typography.Text type="secondary">{intl.formatMessage(m.telegramHint)}</Typography.Text>
        <Spin spinning={isLoading}>
          <TelegramLoginWidget botName={botName} onAuth={onAuth} />
        </Spin>
      </Flex>
    </Modal>
  );
}
