/** Table cells of the channel list: type, status (auto-disable tooltip), keys, latency, balance, inline numbers, lists. */
import { InputNumber, Space, Tag, Tooltip, Typography } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { renderQuota, type QuotaDisplay } from '../../shared/quota';
import { reportProblem } from '../../shared/problem';
import { typeColor } from './channelTypes';
import { CHANNEL_STATUS, MS_PER_SECOND, channelTypeKey } from './constants';
import { KEY_COUNT_COLOR, keyCount } from './keys';
import { cells as m, statuses, typeNames } from './messages';
import { autoDisableInfo, responseTimeColor, type Parsed } from './rules';
import type { Channel } from './types';

const TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';
/** Balances are shown with this many decimals. */
const BALANCE_DIGITS = 2;
const SECONDS_DIGITS = 2;
/** How many model / group tags a cell shows before "+n". */
const LIST_PREVIEW = 3;

export const formatTime = (epochSeconds: number) => dayjs.unix(epochSeconds).format(TIME_FORMAT);

/** The type of a channel, with a warning when this gateway version cannot relay it. */
export function TypeCell({ channel }: { channel: Pick<Channel, 'id' | 'type' | 'served'> }) {
  const intl = useIntl();
  const key = channelTypeKey(channel.type);
  const type = <Tag color={typeColor(key)}>{key ? intl.formatMessage(typeNames[key]) : String(channel.type)}</Tag>;
  if (channel.served !== false) return type;
  return (
    <Space size={4} wrap>
      {type}
      <Tooltip title={intl.formatMessage(m.notServedHint)}>
        <Tag color="orange" data-testid={`channel-not-served-${channel.id}`}>
          {intl.formatMessage(m.notServed)}
        </Tag>
      </Tooltip>
    </Space>
  );
}

/** Why and when a channel was disabled automatically (from other_info). */
export function AutoDisableTip({ otherInfo }: { otherInfo: string }) {
  const intl = useIntl();
  const info = autoDisableInfo(otherInfo);
  if (!info) return <>{intl.formatMessage(statuses.noReason)}</>;
  return (
    <>
      <div>{intl.formatMessage(statuses.reason, { reason: info.reason })}</div>
      {info.time > 0 && <div>{intl.formatMessage(statuses.time, { time: formatTime(info.time) })}</div>}
    </>
  );
}

export function StatusCell({ channel }: { channel: Channel }) {
  const intl = useIntl();
  const id = `channel-status-${channel.id}`;
  switch (channel.status) {
    case CHANNEL_STATUS.enabled:
      return (
        <Tag color="green" data-testid={id}>
          {intl.formatMessage(statuses.enabled)}
        </Tag>
      );
    case CHANNEL_STATUS.disabled:
      return (
        <Tag color="red" data-testid={id}>
          {intl.formatMessage(statuses.disabled)}
        </Tag>
      );
    case CHANNEL_STATUS.autoDisabled:
      return (
        <Tooltip title={<AutoDisableTip otherInfo={channel.other_info} />}>
          <Tag color="gold" data-testid={id}>
            {intl.formatMessage(statuses.autoDisabled)}
          </Tag>
        </Tooltip>
      );
    default:
      return <Tag data-testid={id}>{intl.formatMessage(statuses.unknown)}</Tag>;
  }
}

/**
 * The key count of a multi-key channel ("3 keys", "3 keys · 1 disabled" in the warning colour,
 * the error colour when every key is disabled); nothing for a channel with one key. A click
 * opens the Keys dialog.
 */
export function KeyCountCell({
  channel,
  onOpen,
}: {
  channel: Pick<Channel, 'id' | 'key_count' | 'disabled_key_count'>;
  onOpen?: () => void;
}) {
  const intl = useIntl();
  const count = keyCount(channel);
  if (!count) return null;
  const color = KEY_COUNT_COLOR[count.level];
  const text =
    count.disabled > 0
      ? intl.formatMessage(m.keysDisabled, { total: count.total, disabled: count.disabled })
      : intl.formatMessage(m.keys, { total: count.total });
  return (
    <Tooltip title={intl.formatMessage(m.keysHint, { enabled: count.total - count.disabled, total: count.total })}>
      <Tag
        color={color}
        style={onOpen ? { cursor: 'pointer' } : undefined}
        onClick={onOpen}
        data-testid={`channel-keys-${channel.id}`}
        data-color={color}
      >
        {text}
      </Tag>
    </Tooltip>
  );
}

/** Seconds with two decimals, from milliseconds. */
export const secondsText = (ms: number) => (ms / MS_PER_SECOND).toFixed(SECONDS_DIGITS);

export function ResponseTimeCell({ channel }: { channel: Channel }) {
  const intl = useIntl();
  const ms = channel.response_time;
  const color = responseTimeColor(ms);
  const text = ms > 0 ? intl.formatMessage(m.seconds, { seconds: secondsText(ms) }) : intl.formatMessage(m.untested);
  const tag = (
    <Tag color={color} data-testid={`channel-latency-${channel.id}`} data-color={color}>
      {text}
    </Tag>
  );
  if (!channel.test_time) return tag;
  return <Tooltip title={intl.formatMessage(m.testedAt, { time: formatTime(channel.test_time) })}>{tag}</Tooltip>;
}

export function BalanceCell({
  channel,
  display,
  onUpdate,
  updating,
}: {
  channel: Channel;
  display: QuotaDisplay;
  onUpdate: (c: Channel) => void;
  updating: boolean;
}) {
  const intl = useIntl();
  const when = channel.balance_updated_time ? formatTime(channel.balance_updated_time) : intl.formatMessage(m.never);
  return (
    <Space size={4} wrap>
      <Tag>{intl.formatMessage(m.used, { amount: renderQuota(channel.used_quota, display) })}</Tag>
      <Tooltip title={intl.formatMessage(m.balanceHint, { time: when })}>
        <Tag
          color={updating ? 'processing' : 'blue'}
          style={{ cursor: 'pointer' }}
          onClick={() => !updating && onUpdate(channel)}
          data-testid={`channel-balance-${channel.id}`}
        >
          {intl.formatMessage(m.balance, { amount: channel.balance.toFixed(BALANCE_DIGITS) })}
        </Tag>
      </Tooltip>
    </Space>
  );
}

/**
 * A number edited in place: saved on Enter or blur when it changed. The parse rule decides
 * the value (priority: integer ≥ -999; weight: negative floored to 0) or shows its problem.
 */
export function InlineNumberCell({
  value,
  min,
  parse,
  onSave,
  testId,
}: {
  value: number | null;
  min: number;
  parse: (v: unknown) => Parsed;
  onSave: (n: number) => Promise<boolean>;
  testId: string;
}) {
  const intl = useIntl();
  const [draft, setDraft] = useState<string | number | null>(value);
  const [saving, setSaving] = useState(false);
  const [shown, setShown] = useState(value);
  /** The last value sent, so Enter followed by blur saves once. */
  const [sent, setSent] = useState<number | null>(null);
  if (shown !== value) {
    // The row changed underneath (refetch): show the new value.
    setShown(value);
    setDraft(value);
    setSent(null);
  }
  const commit = async () => {
    if (draft === value || draft === sent) return;
    if (draft === null || draft === '') {
      setDraft(value);
      return;
    }
    const parsed = parse(draft);
    if (reportProblem(intl, parsed.problem)) {
      setDraft(value);
      return;
    }
    setDraft(parsed.value);
    if (parsed.value === value) return;
    setSent(parsed.value);
    setSaving(true);
    const ok = await onSave(parsed.value as number);
    setSaving(false);
    if (!ok) {
      setDraft(value);
      setSent(null);
    }
  };
  return (
    <InputNumber
      size="small"
      style={{ width: 80 }}
      min={min}
      value={draft}
      disabled={saving}
      placeholder="—"
      onChange={(v) => setDraft(v)}
      onBlur={commit}
      onPressEnter={commit}
      data-testid={testId}
    />
  );
}

/** A few tags of a list, the rest in a tooltip. */
export function ListCell({ items, color }: { items: string[]; color?: string }) {
  const intl = useIntl();
  if (items.length === 0) return <Typography.Text type="secondary">—</Typography.Text>;
  const shown = items.slice(0, LIST_PREVIEW);
  const rest = items.slice(LIST_PREVIEW);
  return (
    <Space size={[0, 4]} wrap>
      {shown.map((x) => (
        <Tag key={x} color={color}>
          {x}
        </Tag>
      ))}
      {rest.length > 0 && (
        <Tooltip title={rest.join(', ')}>
          <Tag>{intl.formatMessage(m.more, { count: rest.length })}</Tag>
        </Tooltip>
      )}
    </Space>
  );
}
