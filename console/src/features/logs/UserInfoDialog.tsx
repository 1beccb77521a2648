/** Admins: a user's name, balance, used quota and request count (spec 3 §2.2), read from GET /api/user/{id}. */
import { Descriptions, Modal, Skeleton } from 'antd';
import { useIntl } from 'react-intl';
import { renderQuota, type QuotaDisplay } from '../../shared/quota';
import { useGetUserQuery } from '../users/api';
import { userInfo as m } from './messages';

export function UserInfoDialog({
  userId,
  display,
  onClose,
}: {
  userId: number | null;
  display: QuotaDisplay;
  onClose: () => void;
}) {
  const intl = useIntl();
  const { data: user, isFetching } = useGetUserQuery(userId ?? 0, { skip: userId === null });
  return (
    <Modal open={userId !== null} title={intl.formatMessage(m.title)} footer={null} onCancel={onClose} destroyOnHidden>
      {isFetching || !user ? (
        <Skeleton active paragraph={{ rows: 3 }} />
      ) : (
        <Descriptions
          column={1}
          size="small"
          bordered
          data-testid="logs-user-info"
          items={[
            { key: 'username', label: intl.formatMessage(m.username), children: user.username },
            { key: 'balance', label: intl.formatMessage(m.balance), children: renderQuota(user.quota, display) },
            { key: 'used', label: intl.formatMessage(m.used), children: renderQuota(user.used_quota, display) },
            { key: 'requests', label: intl.formatMessage(m.requests), children: user.request_count },
          ]}
        />
      )}
    </Modal>
  );
}
