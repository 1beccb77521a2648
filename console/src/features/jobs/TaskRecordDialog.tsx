/** The whole record of a task, opened from its task ID (spec 3 §2.4). */
import { Button, Descriptions, Modal, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useQuotaDisplay } from '../status/useStatus';
import { renderQuota } from '../../shared/quota';
import { LabelTag, NONE } from './cells';
import { columns, record as m } from './messages';
import { formatJobTime, taskActionLabel, taskPlatformLabel, taskStatusLabel } from './rules';
import type { TaskJob } from './types';

/** The provider's result as indented JSON when it is JSON, else as it came. */
export function prettyData(data: string): string {
  if (!data.trim()) return '';
  try {
    return JSON.stringify(JSON.parse(data), null, 2);
  } catch {
    return data;
  }
}

export function TaskRecordDialog({ task, admin, onClose }: { task: TaskJob | null; admin: boolean; onClose: () => void }) {
  const intl = useIntl();
  const display = useQuotaDisplay();
  if (!task) return null;
  const time = (t: number) => formatJobTime(t, 's') ?? NONE;
  const data = prettyData(task.data);
  const items = [
    { key: 'id', label: intl.formatMessage(m.id), children: task.id },
    { key: 'taskId', label: intl.formatMessage(m.taskId), children: task.task_id || NONE },
    { key: 'platform', label: intl.formatMessage(m.platform), children: <LabelTag label={taskPlatformLabel(task.platform)} /> },
    { key: 'action', label: intl.formatMessage(m.action), children: <LabelTag label={taskActionLabel(task.action)} /> },
    { key: 'status', label: intl.formatMessage(m.status), children: <LabelTag label={taskStatusLabel(task.status)} /> },
    { key: 'progress', label: intl.formatMessage(m.progress), children: task.progress || NONE },
    { key: 'userId', label: intl.formatMessage(m.userId), children: task.user_id },
    ...(admin ? [{ key: 'channel', label: intl.formatMessage(m.channel), children: task.channel_id || NONE }] : []),
    { key: 'quota', label: intl.formatMessage(m.quota), children: renderQuota(task.quota, display) },
    { key: 'createdAt', label: intl.formatMessage(m.createdAt), children: time(task.created_at) },
    { key: 'updatedAt', label: intl.formatMessage(m.updatedAt), children: time(task.updated_at) },
    { key: 'submitTime', label: intl.formatMessage(m.submitTime), children: time(task.submit_time) },
    { key: 'startTime', label: intl.formatMessage(m.startTime), children: time(task.start_time) },
    { key: 'finishTime', label: intl.formatMessage(m.finishTime), children: time(task.finish_time) },
    {
      key: 'failReason',
      label: intl.formatMessage(m.failReason),
      children: <span style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{task.fail_reason || NONE}</span>,
    },
    {
      key: 'data',
      label: intl.formatMessage(m.data),
      children: data ? (
        <Typography.Paragraph copyable={{ text: data }} style={{ marginBottom: 0 }}>
          <pre style={{ margin: 0, maxHeight: 320, overflow: 'auto', whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {data}
          </pre>
        </Typography.Paragraph>
      ) : (
        NONE
      ),
    },
  ];
  return (
    <Modal
      open
      width={720}
      title={intl.formatMessage(m.title, { id: task.task_id || task.id })}
      onCancel={onClose}
      footer={
        <Button type="primary" onClick={onClose}>
          {intl.formatMessage(columns.close)}
        </Button>
      }
    >
      <Descriptions size="small" bordered column={1} items={items} data-testid="task-record" />
    </Modal>
  );
}
