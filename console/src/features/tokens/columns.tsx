/** The tokens table's columns: name, status, quotas, group, masked key, times and row actions. */
import { Button, Popconfirm, Space, Tag, Tooltip } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { IntlShape } from 'react-intl';
import { renderQuota, type QuotaDisplay } from '../../shared/quota';
import { TokenChatButton } from '../chat/TokenChatButton';
import { NEVER_EXPIRES, TOKEN_STATUS } from './constants';
import { actions as am, columns as m } from './messages';
import { formatTimestamp, tokenStatusLabel } from './rules';
import { TokenKeyCell } from './TokenKeyCell';
import type { Token } from './types';

export interface TokenRowHandlers {
  onToggle: (t: Token) => void;
  onEdit: (t: Token) => void;
  onDelete: (t: Token) => void;
}

const NO_WRAP = { whiteSpace: 'nowrap' } as const;

export function tokenColumns(intl: IntlShape, display: QuotaDisplay, h: TokenRowHandlers): ColumnsType<Token> {
  return [
    { title: intl.formatMessage(m.name), dataIndex: 'name', ellipsis: true },
    {
      title: intl.formatMessage(m.status),
      key: 'status',
      render: (_, t) => {
        const l = tokenStatusLabel(t.status);
        return (
          <Space size={4} wrap>
            <Tag color={l.color} data-testid={`token-status-${t.id}`}>
              {intl.formatMessage(l.text)}
            </Tag>
            {t.model_limits_enabled && (
              <Tooltip title={t.model_limits.split(',').join(', ')}>
                <Tag color="blue">{intl.formatMessage(m.modelLimited)}</Tag>
              </Tooltip>
            )}
          </Space>
        );
      },
    },
    {
      title: intl.formatMessage(m.used),
      dataIndex: 'used_quota',
      render: (q: number) => renderQuota(q, display),
    },
    {
      title: intl.formatMessage(m.remain),
      key: 'remain',
      render: (_, t) =>
        t.unlimited_quota ? (
          <Tag color="purple">{intl.formatMessage(m.unlimited)}</Tag>
        ) : (
          <Tag color={t.remain_quota > 0 ? 'green' : 'red'}>{renderQuota(t.remain_quota, display)}</Tag>
        ),
    },
    {
      title: intl.formatMessage(m.group),
      dataIndex: 'group',
      render: (g: string) => (g ? <Tag>{g}</Tag> : <Tag color="default">{intl.formatMessage(m.userGroup)}</Tag>),
    },
    {
      title: intl.formatMessage(m.key),
      key: 'key',
      width: 300,
      render: (_, t) => <TokenKeyCell id={t.id} maskedKey={t.key} />,
    },
    {
      title: intl.formatMessage(m.created),
      dataIndex: 'created_time',
      render: (c: number) => <span style={NO_WRAP}>{formatTimestamp(c)}</span>,
    },
    {
      title: intl.formatMessage(m.expires),
      dataIndex: 'expired_time',
      render: (e: number) => (
        <span style={NO_WRAP}>{e === NEVER_EXPIRES ? intl.formatMessage(m.never) : formatTimestamp(e)}</span>
      ),
    },
    {
      title: intl.formatMessage(m.actions),
      key: 'actions',
      fixed: 'right',
      render: (_, t) => (
        <Space size={4} wrap>
          <TokenChatButton tokenId={t.id} />
          <Button size="small" onClick={() => h.onToggle(t)} data-testid={`token-toggle-${t.id}`}>
            {intl.formatMessage(t.status === TOKEN_STATUS.enabled ? am.disable : am.enable)}
          </Button>
          <Button size="small" onClick={() => h.onEdit(t)} data-testid={`token-edit-${t.id}`}>
            {intl.formatMessage(am.edit)}
          </Button>
          <Popconfirm
            title={intl.formatMessage(am.deleteConfirm, { name: t.name })}
            onConfirm={() => h.onDelete(t)}
            okButtonProps={{ danger: true }}
          >
            <Button size="small" danger data-testid={`token-delete-${t.id}`}>
              {intl.formatMessage(am.delete)}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];
}
