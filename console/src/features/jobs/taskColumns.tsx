/**
 * The task log's columns (spec 3 §2.4), in order: submit time, finish time, progress, elapsed
 * time, channel (admins), platform, type, task ID (opens the whole record), status, failure reason.
 */
import { Button, Tag, Tooltip } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { IntlShape, MessageDescriptor } from 'react-intl';
import { ElapsedCell, LabelTag, LongText, NONE, ProgressCell, TimeCell } from './cells';
import { columns as m } from './messages';
import { taskActionLabel, taskPlatformLabel, taskStatusLabel } from './rules';
import type { TaskJob } from './types';

export function taskColumns(intl: IntlShape, admin: boolean, onOpen: (task: TaskJob) => void): ColumnsType<TaskJob> {
  const t = (d: MessageDescriptor) => intl.formatMessage(d);
  const all: ColumnsType<TaskJob> = [
    {
      key: 'submitTime',
      title: t(m.submitTime),
      render: (_, r) => <TimeCell value={r.submit_time} unit="s" />,
    },
    {
      key: 'finishTime',
      title: t(m.finishTime),
      render: (_, r) => <TimeCell value={r.finish_time} unit="s" />,
    },
    {
      key: 'progress',
      title: t(m.progress),
      render: (_, r) => <ProgressCell progress={r.progress} status={r.status} />,
    },
    {
      key: 'elapsed',
      title: t(m.elapsed),
      render: (_, r) => <ElapsedCell submit={r.submit_time} finish={r.finish_time} unit="s" testId={`task-elapsed-${r.id}`} />,
    },
    {
      key: 'channel',
      title: t(m.channel),
      render: (_, r) => (r.channel_id > 0 ? <Tag color="geekblue">{r.channel_id}</Tag> : NONE),
    },
    {
      key: 'platform',
      title: t(m.platform),
      render: (_, r) => <LabelTag label={taskPlatformLabel(r.platform)} />,
    },
    {
      key: 'type',
      title: t(m.type),
      render: (_, r) => <LabelTag label={taskActionLabel(r.action)} testId={`task-action-${r.id}`} />,
    },
    {
      key: 'taskId',
      title: t(m.taskId),
      render: (_, r) => (
        <Tooltip title={t(m.openRecord)}>
          <Button type="link" size="small" style={{ padding: 0 }} onClick={() => onOpen(r)} data-testid={`task-open-${r.id}`}>
            {r.task_id || String(r.id)}
          </Button>
        </Tooltip>
      ),
    },
    {
      key: 'status',
      title: t(m.status),
      render: (_, r) => <LabelTag label={taskStatusLabel(r.status)} testId={`task-status-${r.id}`} />,
    },
    {
      key: 'failReason',
      title: t(m.failReason),
      render: (_, r) => <LongText text={r.fail_reason} title={t(m.failReason)} testId={`task-fail-${r.id}`} />,
    },
  ];
  // The channel is for admins only (a user's own list carries channel 0 anyway).
  return all.filter((c) => admin || c.key !== 'channel');
}
