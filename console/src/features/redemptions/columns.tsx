/** The redemption table's columns: id, name, status, quota, uses, times, redeemer and row actions. */
import { Button, Popconfirm, Space, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { IntlShape } from 'react-intl';
import { renderQuota, type QuotaDisplay } from '../../shared/quota';
import { REDEMPTION_STATUS, UNLIMITED_USES } from './constants';
import { actions as am, columns as m } from './messages';
import { canEdit, canEnable, formatTime, redemptionStatusLabel } from './rules';
import type { Redemption } from './types';

export interface RedemptionRowHandlers {
  onCopy: (r: Redemption) => void;
  onToggle: (r: Redemption) => void;
  onEdit: (r: Redemption) => void;
  onDelete: (r: Redemption) => void;
}

const NO_WRAP = { whiteSpace: 'nowrap' } as const;

function Validity({ intl, r }: { intl: IntlShape; r: Redemption }) {
  if (!r.valid_from && !r.valid_until) return <>{intl.formatMessage(m.always)}</>;
  return (
    <Space orientation="vertical" size={0} style={NO_WRAP}>
      {r.valid_from > 0 && <span>{intl.formatMessage(m.from, { time: formatTime(r.valid_from) })}</span>}
      {r.valid_until > 0 && <span>{intl.formatMessage(m.until, { time: formatTime(r.valid_until) })}</span>}
    </Space>
  );
}

export function redemptionColumns(intl: IntlShape, display: QuotaDisplay, h: RedemptionRowHandlers): ColumnsType<Redemption> {
  return [
    { title: intl.formatMessage(m.id), dataIndex: 'id', width: 70 },
    {
      title: intl.formatMessage(m.name),
      key: 'name',
      width: 300,
      render: (_, r) => (
        <Space orientation="vertical" size={0}>
          <Typography.Text>{r.name}</Typography.Text>
          <Typography.Text type="secondary" code style={NO_WRAP} data-testid={`redemption-key-${r.id}`}>
            {r.key}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: intl.formatMessage(m.status),
      key: 'status',
      render: (_, r) => {
        const l = redemptionStatusLabel(r.status);
        return (
          <Space size={4} wrap>
            <Tag color={l.color} data-testid={`redemption-status-${r.id}`}>
              {intl.formatMessage(l.text)}
            </Tag>
            {r.is_gift && <Tag color="magenta">{intl.formatMessage(m.gift)}</Tag>}
          </Space>
        );
      },
    },
    { title: intl.formatMessage(m.quota), dataIndex: 'quota', render: (q: number) => renderQuota(q, display) },
    {
      title: intl.formatMessage(m.uses),
      key: 'uses',
      render: (_, r) =>
        r.is_gift
          ? `${r.used_count} / ${r.max_uses === UNLIMITED_USES ? intl.formatMessage(m.unlimited) : r.max_uses}`
          : r.used_count,
    },
    {
      title: intl.formatMessage(m.created),
      dataIndex: 'created_time',
      render: (t: number) => <span style={NO_WRAP}>{formatTime(t)}</span>,
    },
    {
      title: intl.formatMessage(m.redeemedBy),
      dataIndex: 'used_user_id',
      render: (id: number) => (id ? intl.formatMessage(m.userId, { id }) : intl.formatMessage(m.nobody)),
    },
    { title: intl.formatMessage(m.validity), key: 'validity', render: (_, r) => <Validity intl={intl} r={r} /> },
    {
      title: intl.formatMessage(m.actions),
      key: 'actions',
      fixed: 'right',
      render: (_, r) => (
        <Space size={4} wrap>
          <Button size="small" onClick={() => h.onCopy(r)} data-testid={`redemption-copy-${r.id}`}>
            {intl.formatMessage(am.copy)}
          </Button>
          <Button
            size="small"
            disabled={!canEnable(r.status)}
            onClick={() => h.onToggle(r)}
            data-testid={`redemption-toggle-${r.id}`}
          >
            {intl.formatMessage(r.status === REDEMPTION_STATUS.unused ? am.disable : am.enable)}
          </Button>
          <Button size="small" disabled={!canEdit(r.status)} onClick={() => h.onEdit(r)} data-testid={`redemption-edit-${r.id}`}>
            {intl.formatMessage(am.edit)}
          </Button>
          <Popconfirm
            title={intl.formatMessage(am.deleteConfirm, { name: r.name })}
            onConfirm={() => h.onDelete(r)}
            okButtonProps={{ danger: true }}
          >
            <Button size="small" danger data-testid={`redemption-delete-${r.id}`}>
              {intl.formatMessage(am.delete)}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];
}
