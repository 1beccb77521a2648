/** Columns of the channel table (channel rows and tag rows), filtered by the column settings. */
import { DownOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Space, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { IntlShape } from 'react-intl';
import { common } from '../../shared/messages';
import { renderQuota, type QuotaDisplay } from '../../shared/quota';
import { BalanceCell, InlineNumberCell, KeyCountCell, ListCell, ResponseTimeCell, StatusCell, TypeCell } from './cells';
import { CHANNEL_STATUS, PRIORITY_MIN, WEIGHT_MIN } from './constants';
import { isMultiKey } from './keys';
import { actions as am, cells, columns as m, statuses } from './messages';
import type { ColumnKey, ColumnVisibility } from './prefs';
import { commaList, parsePriority, parseWeight } from './rules';
import type { TableRow, TagRow } from './tagRows';
import type { Channel } from './types';

export interface ColumnHandlers {
  onTest: (c: Channel) => void;
  onTestModels: (c: Channel) => void;
  /** Opens the Keys dialog of a multi-key channel. */
  onKeys: (c: Channel) => void;
  onToggle: (c: Channel) => void;
  onEdit: (c: Channel) => void;
  onDelete: (c: Channel) => void;
  onCopy: (c: Channel) => void;
  onUpdateBalance: (c: Channel) => void;
  onPriority: (c: Channel, n: number) => Promise<boolean>;
  onWeight: (c: Channel, n: number) => Promise<boolean>;
  onTagStatus: (tag: string, enabled: boolean) => void;
  onEditTag: (row: TagRow) => void;
  onTagPriority: (tag: string, n: number) => Promise<boolean>;
  onTagWeight: (tag: string, n: number) => Promise<boolean>;
  /** Ids of channels being tested / having their balance updated. */
  testing: ReadonlySet<number>;
  balancing: ReadonlySet<number>;
}

function ChannelActions({ intl, c, h }: { intl: IntlShape; c: Channel; h: ColumnHandlers }) {
  const enabled = c.status === CHANNEL_STATUS.enabled;
  return (
    <Space size={4} wrap>
      <Space.Compact size="small">
        <Button loading={h.testing.has(c.id)} onClick={() => h.onTest(c)} data-testid={`channel-test-${c.id}`}>
          {intl.formatMessage(am.test)}
        </Button>
        <Button
          icon={<DownOutlined />}
          aria-label={intl.formatMessage(am.testModels)}
          title={intl.formatMessage(am.testModels)}
          onClick={() => h.onTestModels(c)}
          data-testid={`channel-test-models-${c.id}`}
        />
      </Space.Compact>
      {isMultiKey(c) && (
        <Button size="small" onClick={() => h.onKeys(c)} data-testid={`channel-manage-keys-${c.id}`}>
          {intl.formatMessage(am.keys)}
        </Button>
      )}
      <Button size="small" danger={enabled} onClick={() => h.onToggle(c)} data-testid={`channel-toggle-${c.id}`}>
        {intl.formatMessage(enabled ? am.disable : am.enable)}
      </Button>
      <Button size="small" onClick={() => h.onEdit(c)} data-testid={`channel-edit-${c.id}`}>
        {intl.formatMessage(common.edit)}
      </Button>
      <Popconfirm title={intl.formatMessage(am.copyConfirm, { name: c.name })} onConfirm={() => h.onCopy(c)}>
        <Button size="small" data-testid={`channel-copy-${c.id}`}>
          {intl.formatMessage(am.copy)}
        </Button>
      </Popconfirm>
      <Popconfirm
        title={intl.formatMessage(am.deleteConfirm, { name: c.name })}
        onConfirm={() => h.onDelete(c)}
        okButtonProps={{ danger: true }}
      >
        <Button size="small" danger data-testid={`channel-delete-${c.id}`}>
          {intl.formatMessage(am.delete)}
        </Button>
      </Popconfirm>
    </Space>
  );
}

function TagActions({ intl, row, h }: { intl: IntlShape; row: TagRow; h: ColumnHandlers }) {
  return (
    <Space size={4} wrap>
      <Button size="small" onClick={() => h.onTagStatus(row.tag, true)} data-testid={`tag-enable-${row.tag}`}>
        {intl.formatMessage(am.enableAll)}
      </Button>
      <Button size="small" danger onClick={() => h.onTagStatus(row.tag, false)} data-testid={`tag-disable-${row.tag}`}>
        {intl.formatMessage(am.disableAll)}
      </Button>
      <Button size="small" onClick={() => h.onEditTag(row)} data-testid={`tag-edit-${row.tag}`}>
        {intl.formatMessage(am.editTag)}
      </Button>
    </Space>
  );
}

/** Column widths in pixels: the name keeps tag rows readable, actions fit on one line. */
const NAME_WIDTH = 180;
const ACTIONS_WIDTH = 290;
const STATUS_WIDTH = 170;

type Column = ColumnsType<TableRow>[number] & { key: ColumnKey | 'actions' };

export function channelColumns(
  intl: IntlShape,
  display: QuotaDisplay,
  visible: ColumnVisibility,
  h: ColumnHandlers,
): ColumnsType<TableRow> {
  const all: Column[] = [
    {
      key: 'id',
      title: intl.formatMessage(m.id),
      width: 80,
      render: (_, r) => (r.kind === 'channel' ? r.channel.id : null),
    },
    {
      key: 'name',
      title: intl.formatMessage(m.name),
      width: NAME_WIDTH,
      render: (_, r) =>
        r.kind === 'channel' ? (
          <Space orientation="vertical" size={0}>
            <Typography.Text strong data-testid={`channel-name-${r.channel.id}`}>
              {r.channel.name}
            </Typography.Text>
            {r.channel.remark && <Typography.Text type="secondary">{r.channel.remark}</Typography.Text>}
          </Space>
        ) : (
          <Space orientation="vertical" size={0} data-testid={`tag-row-${r.tag}`}>
            <Tag color="purple">{r.tag}</Tag>
            <Typography.Text type="secondary">
              {intl.formatMessage(cells.tagChannels, { count: r.children.length })}
            </Typography.Text>
          </Space>
        ),
    },
    {
      key: 'group',
      title: intl.formatMessage(m.group),
      render: (_, r) => <ListCell items={r.kind === 'channel' ? commaList(r.channel.group) : r.groups} />,
    },
    {
      key: 'type',
      title: intl.formatMessage(m.type),
      render: (_, r) => (r.kind === 'channel' ? <TypeCell channel={r.channel} /> : null),
    },
    {
      key: 'status',
      title: intl.formatMessage(m.status),
      // Room for the key tag of multi-key channels ("3 keys · 1 disabled").
      width: STATUS_WIDTH,
      render: (_, r) =>
        r.kind === 'channel' ? (
          <Space size={4} wrap>
            <StatusCell channel={r.channel} />
            <KeyCountCell channel={r.channel} onOpen={() => h.onKeys(r.channel)} />
          </Space>
        ) : (
          <Tag color={r.enabled === r.children.length ? 'green' : r.enabled === 0 ? 'red' : 'gold'}>
            {intl.formatMessage(statuses.tagMixed, { enabled: r.enabled, total: r.children.length })}
          </Tag>
        ),
    },
    {
      key: 'responseTime',
      title: intl.formatMessage(m.responseTime),
      render: (_, r) => (r.kind === 'channel' ? <ResponseTimeCell channel={r.channel} /> : null),
    },
    {
      key: 'balance',
      title: intl.formatMessage(m.balance),
      render: (_, r) =>
        r.kind === 'channel' ? (
          <BalanceCell
            channel={r.channel}
            display={display}
            onUpdate={h.onUpdateBalance}
            updating={h.balancing.has(r.channel.id)}
          />
        ) : (
          <Tag>{intl.formatMessage(cells.used, { amount: renderQuota(r.usedQuota, display) })}</Tag>
        ),
    },
    {
      key: 'priority',
      title: intl.formatMessage(m.priority),
      width: 110,
      render: (_, r) =>
        r.kind === 'channel' ? (
          <InlineNumberCell
            value={r.channel.priority}
            min={PRIORITY_MIN}
            parse={parsePriority}
            onSave={(n) => h.onPriority(r.channel, n)}
            testId={`channel-priority-${r.channel.id}`}
          />
        ) : (
          <InlineNumberCell
            value={r.priority}
            min={PRIORITY_MIN}
            parse={parsePriority}
            onSave={(n) => h.onTagPriority(r.tag, n)}
            testId={`tag-priority-${r.tag}`}
          />
        ),
    },
    {
      key: 'weight',
      title: intl.formatMessage(m.weight),
      width: 110,
      render: (_, r) =>
        r.kind === 'channel' ? (
          <InlineNumberCell
            value={r.channel.weight}
            min={WEIGHT_MIN}
            parse={parseWeight}
            onSave={(n) => h.onWeight(r.channel, n)}
            testId={`channel-weight-${r.channel.id}`}
          />
        ) : (
          <InlineNumberCell
            value={r.weight}
            min={WEIGHT_MIN}
            parse={parseWeight}
            onSave={(n) => h.onTagWeight(r.tag, n)}
            testId={`tag-weight-${r.tag}`}
          />
        ),
    },
    {
      key: 'tag',
      title: intl.formatMessage(m.tag),
      render: (_, r) => (r.kind === 'channel' && r.channel.tag ? <Tag color="purple">{r.channel.tag}</Tag> : null),
    },
    {
      key: 'models',
      title: intl.formatMessage(m.models),
      render: (_, r) => <ListCell items={r.kind === 'channel' ? commaList(r.channel.models) : r.models} color="blue" />,
    },
    {
      key: 'actions',
      title: intl.formatMessage(m.actions),
      fixed: 'right',
      width: ACTIONS_WIDTH,
      render: (_, r) =>
        r.kind === 'channel' ? <ChannelActions intl={intl} c={r.channel} h={h} /> : <TagActions intl={intl} row={r} h={h} />,
    },
  ];
  return all.filter((c) => c.key === 'actions' || visible[c.key]);
}
