/**
 * The usage log's columns in the order of spec 3 §2.2: time, channel (admin), user (admin),
 * token, group, type, model, time / first token, prompt, completion, cost, retry (admin),
 * details. The visible set comes from the column settings.
 */
import { Flex, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { IntlShape } from 'react-intl';
import type { QuotaDisplay } from '../../shared/quota';
import { CopyTag, TimingCell, UserCell } from './cells';
import { LOG_TYPE } from './constants';
import { columns as m } from './messages';
import { mappedModel, retryCount } from './other';
import { columnShown, type LogColumnKey, type LogColumnVisibility } from './prefs';
import { channelsTriedText, costText, detailSummary, formatLogTime, isRelayRecord, logTypeLabel, type Shown } from './rules';
import type { LogRow } from './row';

export interface LogRowHandlers {
  onCopy: (text: string) => void;
  onUser: (userId: number) => void;
}

const NO_WRAP = { whiteSpace: 'nowrap' } as const;

export function shownText(intl: IntlShape, s: Shown): string {
  return 'text' in s ? s.text : intl.formatMessage(s.message, s.values);
}

export function logColumns(
  intl: IntlShape,
  display: QuotaDisplay,
  visible: LogColumnVisibility,
  admin: boolean,
  h: LogRowHandlers,
): ColumnsType<LogRow> {
  const all: (ColumnsType<LogRow>[number] & { key: LogColumnKey })[] = [
    {
      key: 'time',
      title: intl.formatMessage(m.time),
      dataIndex: 'created_at',
      render: (t: number) => <span style={NO_WRAP}>{formatLogTime(t)}</span>,
    },
    {
      key: 'channel',
      title: intl.formatMessage(m.channel),
      render: (_, r) =>
        r.channel > 0 ? (
          <Tooltip title={r.channel_name}>
            <Tag color="geekblue" data-testid={`log-channel-${r.id}`}>
              {r.channel}
            </Tag>
          </Tooltip>
        ) : null,
    },
    {
      key: 'user',
      title: intl.formatMessage(m.user),
      render: (_, r) => <UserCell row={r} onOpen={h.onUser} />,
    },
    {
      key: 'token',
      title: intl.formatMessage(m.token),
      render: (_, r) => <CopyTag text={r.token_name} onCopy={h.onCopy} />,
    },
    {
      key: 'group',
      title: intl.formatMessage(m.group),
      render: (_, r) => <CopyTag text={r.group} onCopy={h.onCopy} />,
    },
    {
      key: 'type',
      title: intl.formatMessage(m.type),
      render: (_, r) => {
        const l = logTypeLabel(r.type);
        return (
          <Tag color={l.color} data-testid={`log-type-${r.id}`}>
            {intl.formatMessage(l.text)}
          </Tag>
        );
      },
    },
    {
      key: 'model',
      title: intl.formatMessage(m.model),
      render: (_, r) => {
        const upstream = mappedModel(r.parsed, r.model_name);
        return (
          <Flex vertical gap={2} align="start">
            <CopyTag text={r.model_name} onCopy={h.onCopy} testId={`log-model-${r.id}`} />
            {upstream && (
              <Typography.Text type="secondary" style={{ fontSize: 12, ...NO_WRAP }}>
                {intl.formatMessage(m.mappedTo, { model: upstream })}
              </Typography.Text>
            )}
          </Flex>
        );
      },
    },
    {
      key: 'useTime',
      title: intl.formatMessage(m.useTime),
      render: (_, r) => (isRelayRecord(r.type) ? <TimingCell row={r} /> : null),
    },
    {
      key: 'prompt',
      title: intl.formatMessage(m.prompt),
      align: 'right',
      render: (_, r) => (isRelayRecord(r.type) ? <span data-testid={`log-prompt-${r.id}`}>{r.prompt_tokens}</span> : null),
    },
    {
      key: 'completion',
      title: intl.formatMessage(m.completion),
      align: 'right',
      render: (_, r) =>
        isRelayRecord(r.type) ? <span data-testid={`log-completion-${r.id}`}>{r.completion_tokens}</span> : null,
    },
    {
      key: 'cost',
      title: intl.formatMessage(m.cost),
      align: 'right',
      render: (_, r) =>
        r.type === LOG_TYPE.consume || r.quota !== 0 ? (
          <span style={NO_WRAP} data-testid={`log-cost-${r.id}`} data-quota={r.quota}>
            {costText(r.quota, display)}
          </span>
        ) : null,
    },
    {
      key: 'retry',
      title: intl.formatMessage(m.retry),
      render: (_, r) => {
        const n = retryCount(r.parsed);
        return n > 0 ? (
          <Tooltip title={intl.formatMessage(m.retried, { count: n })}>
            <span style={NO_WRAP} data-testid={`log-retry-${r.id}`}>
              {channelsTriedText(r.parsed)}
            </span>
          </Tooltip>
        ) : null;
      },
    },
    {
      key: 'details',
      title: intl.formatMessage(m.details),
      render: (_, r) => {
        const text = shownText(intl, detailSummary(r, r.parsed));
        return (
          <Typography.Text ellipsis={{ tooltip: text }} style={{ maxWidth: 280 }}>
            {text}
          </Typography.Text>
        );
      },
    },
  ];
  return all.filter((c) => columnShown(visible, c.key, admin));
}
