/**
 * The Keys dialog of a multi-key channel: how many keys are enabled or disabled (by hand,
 * automatically), each key's preview, status, reason and time, enabling / disabling / testing
 * one key, enabling all and deleting the disabled ones. Every change invalidates the channel,
 * so this list and the channel table refetch; failures are toasted by the API layer.
 */
import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Modal, Popconfirm, Segmented, Space, Statistic, Table, Tag, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import { toast } from '../../shared/feedback';
import { isApiError } from '../../shared/apiError';
import { useChannelKeysQuery, useManageChannelKeysMutation, useTestChannelMutation, type KeyActionArgs } from './api';
import { formatTime } from './cells';
import { CHANNEL_STATUS } from './constants';
import { KEY_FILTER, disabledKeys, filterKeys, type KeyFilter } from './keys';
import { actions as am, keysDialog as m, page } from './messages';
import { ResultCell, type Outcome } from './ModelTestDialog';
import type { Channel, KeyView, KeysView } from './types';

const DIALOG_WIDTH = 1040;
/** Column widths in pixels; the reason takes the rest and is cut with a tooltip. */
const WIDTH = { index: 70, key: 120, status: 140, time: 160, result: 150, actions: 150 } as const;
const NO_WRAP = { whiteSpace: 'nowrap' } as const;

/** The filter options in display order, with their labels. */
const FILTERS: { value: KeyFilter; label: MessageDescriptor }[] = [
  { value: KEY_FILTER.all, label: m.all },
  { value: KEY_FILTER.enabled, label: m.enabled },
  { value: KEY_FILTER.manual, label: m.manual },
  { value: KEY_FILTER.auto, label: m.auto },
];

export function KeyStatusTag({ keyView }: { keyView: Pick<KeyView, 'index' | 'status'> }) {
  const intl = useIntl();
  const id = `key-status-${keyView.index}`;
  switch (keyView.status) {
    case CHANNEL_STATUS.enabled:
      return (
        <Tag color="green" data-testid={id}>
          {intl.formatMessage(m.enabled)}
        </Tag>
      );
    case CHANNEL_STATUS.disabled:
      return (
        <Tag color="red" data-testid={id}>
          {intl.formatMessage(m.manual)}
        </Tag>
      );
    case CHANNEL_STATUS.autoDisabled:
      return (
        <Tag color="gold" data-testid={id}>
          {intl.formatMessage(m.auto)}
        </Tag>
      );
    default:
      return <Tag data-testid={id}>{String(keyView.status)}</Tag>;
  }
}

function Summary({ view, loading }: { view: KeysView | undefined; loading: boolean }) {
  const intl = useIntl();
  const items = [
    { key: 'total', title: m.total, value: view?.total },
    { key: 'enabled', title: m.enabled, value: view?.enabled },
    { key: 'manual', title: m.manual, value: view?.manually_disabled },
    { key: 'auto', title: m.auto, value: view?.auto_disabled },
  ];
  return (
    <Flex gap={24} wrap data-testid="keys-summary">
      {items.map((i) => (
        <Statistic
          key={i.key}
          loading={loading && !view}
          title={intl.formatMessage(i.title)}
          value={i.value ?? '-'}
          data-testid={`keys-summary-${i.key}`}
          data-value={i.value}
        />
      ))}
    </Flex>
  );
}

/** Why the channel's keys get no requests whatever their own status. */
function ChannelStatusNotice({ status }: { status: number | undefined }) {
  const intl = useIntl();
  if (status === CHANNEL_STATUS.autoDisabled) {
    return <Alert type="warning" showIcon title={intl.formatMessage(m.channelAutoDisabled)} data-testid="keys-channel-status" />;
  }
  if (status === CHANNEL_STATUS.disabled) {
    return <Alert type="info" showIcon title={intl.formatMessage(m.channelDisabled)} data-testid="keys-channel-status" />;
  }
  return null;
}

function KeysList({ channel, onClose }: { channel: Channel; onClose: () => void }) {
  const intl = useIntl();
  const [filter, setFilter] = useState<KeyFilter>(KEY_FILTER.all);
  const [outcomes, setOutcomes] = useState<Record<number, Outcome>>({});
  /** The action running: `toggle-<index>`, `enableAll` or `deleteDisabled`. */
  const [busy, setBusy] = useState<string | null>(null);
  // Keys change underneath (relay failures disable them): always fetch on open.
  const { data, isFetching, refetch } = useChannelKeysQuery(channel.id, { refetchOnMountOrArgChange: true });
  const [manage] = useManageChannelKeysMutation();
  const [test] = useTestChannelMutation();

  const disabled = data ? disabledKeys(data) : 0;
  const rows = filterKeys(data?.keys ?? [], filter);

  async function act(id: string, args: Omit<KeyActionArgs, 'channelId'>, done: (v: KeysView) => string) {
    setBusy(id);
    try {
      const view = await manage({ channelId: channel.id, ...args }).unwrap();
      toast.success(done(view));
      return true;
    } catch {
      // Toasted by the API layer with the server's message.
      return false;
    } finally {
      setBusy(null);
    }
  }

  const toggle = (k: KeyView) => {
    const enable = k.status !== CHANNEL_STATUS.enabled;
    return act(`toggle-${k.index}`, { action: enable ? 'enable_key' : 'disable_key', keyIndex: k.index }, () =>
      intl.formatMessage(enable ? m.keyEnabled : m.keyDisabled, { index: k.index }),
    );
  };

  const deleteDisabled = async () => {
    const ok = await act('deleteDisabled', { action: 'delete_disabled_keys' }, (v) =>
      intl.formatMessage(m.deletedDisabled, { total: v.total }),
    );
    if (ok) {
      // The keys were renumbered: earlier results and a disabled-only filter no longer apply.
      setOutcomes({});
      setFilter(KEY_FILTER.all);
    }
  };

  const runTest = async (index: number) => {
    setOutcomes((o) => ({ ...o, [index]: { state: 'testing' } }));
    try {
      const r = await test({ id: channel.id, keyIndex: index }).unwrap();
      setOutcomes((o) => ({ ...o, [index]: { state: 'ok', seconds: r.time } }));
    } catch (e) {
      setOutcomes((o) => ({ ...o, [index]: { state: 'failed', message: isApiError(e) ? e.message : String(e) } }));
    }
  };

  return (
    <Modal open title={intl.formatMessage(m.title, { name: channel.name })} onCancel={onClose} footer={null} width={DIALOG_WIDTH}>
      <Flex vertical gap={12} data-testid="keys-dialog">
        <Summary view={data} loading={isFetching} />
        <ChannelStatusNotice status={data?.channel_status} />
        <Flex gap={8} wrap justify="space-between" align="center">
          <Segmented<KeyFilter>
            value={filter}
            onChange={setFilter}
            aria-label={intl.formatMessage(m.filter)}
            options={FILTERS.map((f) => ({ value: f.value, label: intl.formatMessage(f.label) }))}
            data-testid="keys-filter"
          />
          <Space wrap>
            <Button
              loading={busy === 'enableAll'}
              disabled={disabled === 0 || (busy !== null && busy !== 'enableAll')}
              onClick={() => act('enableAll', { action: 'enable_all_keys' }, () => intl.formatMessage(m.enabledAll))}
              data-testid="keys-enable-all"
            >
              {intl.formatMessage(m.enableAll)}
            </Button>
            <Popconfirm
              title={intl.formatMessage(m.deleteDisabledConfirm, { count: disabled })}
              description={<div style={{ maxWidth: 320 }}>{intl.formatMessage(m.deleteDisabledHint)}</div>}
              onConfirm={deleteDisabled}
              okButtonProps={{ danger: true }}
            >
              <Button
                danger
                loading={busy === 'deleteDisabled'}
                disabled={disabled === 0 || (busy !== null && busy !== 'deleteDisabled')}
                data-testid="keys-delete-disabled"
              >
                {intl.formatMessage(m.deleteDisabled)}
              </Button>
            </Popconfirm>
            <Button
              icon={<ReloadOutlined />}
              onClick={() => refetch()}
              aria-label={intl.formatMessage(page.refresh)}
              title={intl.formatMessage(page.refresh)}
              data-testid="keys-refresh"
            />
          </Space>
        </Flex>
        <Table<KeyView>
          size="small"
          rowKey="index"
          loading={isFetching}
          dataSource={rows}
          pagination={{ defaultPageSize: 10, hideOnSinglePage: true, showSizeChanger: true }}
          data-testid="keys-table"
          columns={[
            { key: 'index', title: intl.formatMessage(m.index), width: WIDTH.index, render: (_, k) => `#${k.index}` },
            {
              key: 'key',
              title: intl.formatMessage(m.key),
              width: WIDTH.key,
              render: (_, k) => (
                <Typography.Text code style={NO_WRAP} data-testid={`key-preview-${k.index}`}>
                  {k.preview}
                </Typography.Text>
              ),
            },
            {
              key: 'status',
              title: intl.formatMessage(m.status),
              width: WIDTH.status,
              render: (_, k) => <KeyStatusTag keyView={k} />,
            },
            {
              key: 'reason',
              title: intl.formatMessage(m.reason),
              ellipsis: { showTitle: false },
              render: (_, k) =>
                k.reason ? (
                  <Tooltip title={k.reason}>
                    <Typography.Text data-testid={`key-reason-${k.index}`}>{k.reason}</Typography.Text>
                  </Tooltip>
                ) : (
                  <Typography.Text type="secondary">—</Typography.Text>
                ),
            },
            {
              key: 'disabledTime',
              title: intl.formatMessage(m.disabledTime),
              width: WIDTH.time,
              render: (_, k) =>
                k.status !== CHANNEL_STATUS.enabled && k.disabled_time > 0 ? (
                  <span style={NO_WRAP} data-testid={`key-time-${k.index}`}>
                    {formatTime(k.disabled_time)}
                  </span>
                ) : (
                  <Typography.Text type="secondary">—</Typography.Text>
                ),
            },
            {
              key: 'result',
              title: intl.formatMessage(m.result),
              width: WIDTH.result,
              ellipsis: { showTitle: false },
              render: (_, k) => {
                const outcome = outcomes[k.index];
                if (!outcome) return null;
                // A failure can be long: cut here, whole in the tooltip.
                return (
                  <Tooltip title={outcome.state === 'failed' ? outcome.message : undefined}>
                    <span data-testid={`key-result-${k.index}`}>
                      <ResultCell outcome={outcome} />
                    </span>
                  </Tooltip>
                );
              },
            },
            {
              key: 'actions',
              title: intl.formatMessage(m.actions),
              width: WIDTH.actions,
              render: (_, k) => {
                const enabled = k.status === CHANNEL_STATUS.enabled;
                const id = `toggle-${k.index}`;
                return (
                  <Space size={4}>
                    <Button
                      size="small"
                      danger={enabled}
                      loading={busy === id}
                      disabled={busy !== null && busy !== id}
                      onClick={() => toggle(k)}
                      data-testid={`key-toggle-${k.index}`}
                    >
                      {intl.formatMessage(enabled ? am.disable : am.enable)}
                    </Button>
                    <Button
                      size="small"
                      loading={outcomes[k.index]?.state === 'testing'}
                      onClick={() => runTest(k.index)}
                      data-testid={`key-test-${k.index}`}
                    >
                      {intl.formatMessage(am.test)}
                    </Button>
                  </Space>
                );
              },
            },
          ]}
        />
      </Flex>
    </Modal>
  );
}

export function KeysDialog({ channel, onClose }: { channel: Channel | null; onClose: () => void }) {
  return channel ? <KeysList key={channel.id} channel={channel} onClose={onClose} /> : null;
}
