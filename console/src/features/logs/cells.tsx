/** Small cells of the usage log: a tag that copies its text, the time badges, the user avatar. */
import { Avatar, Button, Space, Tag, Tooltip, Typography } from 'antd';
import type { MouseEvent } from 'react';
import { useIntl } from 'react-intl';
import { columns as m, userInfo } from './messages';
import { frtColor, frtSeconds, durationColor } from './rules';
import type { LogRow } from './row';

/** Clicks inside a row's cells must not also expand the row. */
const stop = (e: MouseEvent) => e.stopPropagation();

/** A tag whose text is copied on click (model, token, group: spec 3 §2.2). */
export function CopyTag({ text, onCopy, testId }: { text: string; onCopy: (text: string) => void; testId?: string }) {
  const intl = useIntl();
  if (!text) return null;
  return (
    <Tooltip title={intl.formatMessage(m.copyHint)}>
      <Tag
        style={{ cursor: 'pointer', marginInlineEnd: 0 }}
        onClick={(e) => {
          stop(e);
          onCopy(text);
        }}
        data-testid={testId}
      >
        {text}
      </Tag>
    </Tooltip>
  );
}

/** Time to complete, first-token time and stream / non-stream badges. */
export function TimingCell({ row }: { row: LogRow }) {
  const intl = useIntl();
  const { frt } = row.parsed;
  return (
    <Space size={4} wrap>
      <Tooltip title={intl.formatMessage(m.totalTime, { seconds: row.use_time })}>
        <Tag color={durationColor(row.use_time)} data-testid={`log-use-time-${row.id}`}>
          {intl.formatMessage(m.seconds, { seconds: row.use_time })}
        </Tag>
      </Tooltip>
      {frt !== undefined && (
        <Tooltip title={intl.formatMessage(m.firstToken, { seconds: frtSeconds(frt) })}>
          <Tag color={frtColor(frt)} data-testid={`log-frt-${row.id}`}>
            {intl.formatMessage(m.seconds, { seconds: frtSeconds(frt) })}
          </Tag>
        </Tooltip>
      )}
      <Tag color={row.is_stream ? 'blue' : 'default'}>{intl.formatMessage(row.is_stream ? m.stream : m.nonStream)}</Tag>
    </Space>
  );
}

/** Admins: the user's avatar opens the user info dialog; the name follows. */
export function UserCell({ row, onOpen }: { row: LogRow; onOpen: (userId: number) => void }) {
  const intl = useIntl();
  return (
    <Space size={6}>
      <Button
        type="text"
        size="small"
        shape="circle"
        aria-label={intl.formatMessage(userInfo.open)}
        onClick={(e) => {
          stop(e);
          onOpen(row.user_id);
        }}
        data-testid={`log-user-${row.id}`}
        icon={
          <Avatar size="small" style={{ backgroundColor: '#1677ff' }}>
            {row.username.slice(0, 1).toUpperCase()}
          </Avatar>
        }
      />
      <Typography.Text style={{ whiteSpace: 'nowrap' }}>{row.username}</Typography.Text>
    </Space>
  );
}
