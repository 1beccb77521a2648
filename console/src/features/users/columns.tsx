import { Button, Popconfirm, Space, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { IntlShape } from 'react-intl';
import type { User } from '../../api/types';
import { USER_ACTION, type UserAction } from '../../shared/constants';
import { renderQuota, type QuotaDisplay } from '../../shared/quota';
import { CONFIRMED_ACTIONS, availableActions, roleLabel, statusLabel } from './labels';
import { common } from '../../shared/messages';
import { actions as am, columns as m } from './messages';

const CONFIRM_TEXT = {
  [USER_ACTION.promote]: am.promoteConfirm,
  [USER_ACTION.demote]: am.demoteConfirm,
  [USER_ACTION.delete]: am.deleteConfirm,
} as const;

function ActionButton({
  intl,
  user,
  action,
  disabled,
  onAction,
}: {
  intl: IntlShape;
  user: User;
  action: UserAction;
  disabled: boolean;
  onAction: (u: User, a: UserAction) => void;
}) {
  const danger = action === USER_ACTION.delete || action === USER_ACTION.disable;
  const button = (
    <Button
      size="small"
      danger={danger}
      disabled={disabled}
      data-testid={`user-${action}-${user.id}`}
      onClick={CONFIRMED_ACTIONS.has(action) ? undefined : () => onAction(user, action)}
    >
      {intl.formatMessage(am[action])}
    </Button>
  );
  if (!CONFIRMED_ACTIONS.has(action) || disabled) return button;
  const text = CONFIRM_TEXT[action as keyof typeof CONFIRM_TEXT];
  return (
    <Popconfirm
      title={intl.formatMessage(text, { name: user.username })}
      onConfirm={() => onAction(user, action)}
      okButtonProps={{ danger }}
    >
      {button}
    </Popconfirm>
  );
}

export function userColumns(
  intl: IntlShape,
  display: QuotaDisplay,
  onAction: (u: User, a: UserAction) => void,
  onEdit: (u: User) => void,
): ColumnsType<User> {
  return [
    { title: intl.formatMessage(m.id), dataIndex: 'id', width: 70 },
    {
      title: intl.formatMessage(m.username),
      dataIndex: 'username',
      render: (_, u) => (
        <Space orientation="vertical" size={0}>
          <Typography.Text strong>{u.username}</Typography.Text>
          {u.display_name && <Typography.Text type="secondary">{u.display_name}</Typography.Text>}
          {u.remark && (
            <Typography.Text type="secondary" italic>
              {u.remark}
            </Typography.Text>
          )}
        </Space>
      ),
    },
    { title: intl.formatMessage(m.group), dataIndex: 'group', render: (g: string) => <Tag>{g}</Tag> },
    {
      title: intl.formatMessage(m.quota),
      key: 'quota',
      render: (_, u) => (
        <Tooltip title={`${u.quota} / ${u.used_quota}`}>
          <Tag color="green">{renderQuota(u.quota, display)}</Tag>
          <Tag>{renderQuota(u.used_quota, display)}</Tag>
        </Tooltip>
      ),
    },
    { title: intl.formatMessage(m.requests), dataIndex: 'request_count' },
    {
      title: intl.formatMessage(m.invitation),
      key: 'aff',
      render: (_, u) => `${u.aff_count} / ${renderQuota(u.aff_history_quota, display)}`,
    },
    {
      title: intl.formatMessage(m.role),
      dataIndex: 'role',
      render: (r: number) => {
        const l = roleLabel(r);
        return <Tag color={l.color}>{intl.formatMessage(l.text)}</Tag>;
      },
    },
    {
      title: intl.formatMessage(m.status),
      key: 'status',
      render: (_, u) => {
        const l = statusLabel(u);
        return (
          <Tag color={l.color} data-testid={`user-status-${u.id}`}>
            {intl.formatMessage(l.text)}
          </Tag>
        );
      },
    },
    {
      title: intl.formatMessage(m.actions),
      key: 'actions',
      render: (_, u) => {
        const list = availableActions(u);
        if (list.length === 0) return null;
        return (
          <Space wrap size={4}>
            {list.map(({ action, disabled }) => (
              <ActionButton key={action} intl={intl} user={u} action={action} disabled={disabled} onAction={onAction} />
            ))}
            <Button size="small" onClick={() => onEdit(u)} data-testid={`user-edit-${u.id}`}>
              {intl.formatMessage(common.edit)}
            </Button>
          </Space>
        );
      },
    },
  ];
}
