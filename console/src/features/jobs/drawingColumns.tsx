/**
 * The drawing log's columns (spec 3 §2.3), in order: submit time, elapsed time, channel (admins),
 * type, task ID, submit result, status, progress, result image, prompt, English prompt,
 * failure reason.
 */
import { Image, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { IntlShape, MessageDescriptor } from 'react-intl';
import { ElapsedCell, LabelTag, LongText, NONE, ProgressCell, TimeCell } from './cells';
import { columns as m } from './messages';
import { drawingActionLabel, drawingCodeLabel, drawingStatusLabel } from './rules';
import type { DrawingJob } from './types';

export function drawingColumns(intl: IntlShape, admin: boolean): ColumnsType<DrawingJob> {
  const t = (d: MessageDescriptor) => intl.formatMessage(d);
  const all: ColumnsType<DrawingJob> = [
    {
      key: 'submitTime',
      title: t(m.submitTime),
      render: (_, r) => <TimeCell value={r.submit_time} unit="ms" />,
    },
    {
      key: 'elapsed',
      title: t(m.elapsed),
      render: (_, r) => (
        <ElapsedCell submit={r.submit_time} finish={r.finish_time} unit="ms" testId={`drawing-elapsed-${r.id}`} />
      ),
    },
    {
      key: 'channel',
      title: t(m.channel),
      render: (_, r) => (r.channel_id > 0 ? <Tag color="geekblue">{r.channel_id}</Tag> : NONE),
    },
    {
      key: 'type',
      title: t(m.type),
      render: (_, r) => <LabelTag label={drawingActionLabel(r.action)} testId={`drawing-action-${r.id}`} />,
    },
    {
      key: 'taskId',
      title: t(m.taskId),
      render: (_, r) =>
        r.mj_id ? (
          <Typography.Text copyable style={{ whiteSpace: 'nowrap' }}>
            {r.mj_id}
          </Typography.Text>
        ) : (
          NONE
        ),
    },
    {
      key: 'submitResult',
      title: t(m.submitResult),
      render: (_, r) => <LabelTag label={drawingCodeLabel(r.code)} testId={`drawing-code-${r.id}`} />,
    },
    {
      key: 'status',
      title: t(m.status),
      render: (_, r) => <LabelTag label={drawingStatusLabel(r.status)} testId={`drawing-status-${r.id}`} />,
    },
    {
      key: 'progress',
      title: t(m.progress),
      render: (_, r) => <ProgressCell progress={r.progress} status={r.status} />,
    },
    {
      key: 'image',
      title: t(m.image),
      render: (_, r) =>
        r.image_url ? (
          <Image
            src={r.image_url}
            width={60}
            alt={intl.formatMessage(m.viewImage, { id: r.mj_id || r.id })}
            data-testid={`drawing-image-${r.id}`}
          />
        ) : (
          NONE
        ),
    },
    {
      key: 'prompt',
      title: t(m.prompt),
      render: (_, r) => <LongText text={r.prompt} title={t(m.prompt)} testId={`drawing-prompt-${r.id}`} />,
    },
    {
      key: 'promptEn',
      title: t(m.promptEn),
      render: (_, r) => <LongText text={r.prompt_en} title={t(m.promptEn)} />,
    },
    {
      key: 'failReason',
      title: t(m.failReason),
      render: (_, r) => <LongText text={r.fail_reason} title={t(m.failReason)} testId={`drawing-fail-${r.id}`} />,
    },
  ];
  // The channel is for admins only (a user's own list carries channel 0 anyway).
  return all.filter((c) => admin || c.key !== 'channel');
}
