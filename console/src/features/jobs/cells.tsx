/** Cells shared by the drawing and task logs: labels, times, elapsed time, progress and long texts. */
import { Button, Modal, Progress, Tag, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { columns as m } from './messages';
import { elapsedColor, elapsedSeconds, formatJobTime, progressPercent, type Label, type TimeUnit } from './rules';

const NO_WRAP = { whiteSpace: 'nowrap' } as const;
/** Shown for a value the record does not have (yet). */
export const NONE = '—';

export function LabelTag({ label, testId }: { label: Label; testId?: string }) {
  const intl = useIntl();
  return (
    <Tag color={label.color} style={NO_WRAP} data-testid={testId}>
      {'message' in label ? intl.formatMessage(label.message) : label.text || NONE}
    </Tag>
  );
}

export function TimeCell({ value, unit }: { value: number; unit: TimeUnit }) {
  return <span style={NO_WRAP}>{formatJobTime(value, unit) ?? NONE}</span>;
}

/** Seconds from submit to finish, red above 60 s (spec 3 §2.3). */
export function ElapsedCell({
  submit,
  finish,
  unit,
  testId,
}: {
  submit: number;
  finish: number;
  unit: TimeUnit;
  testId: string;
}) {
  const intl = useIntl();
  const s = elapsedSeconds(submit, finish, unit);
  if (s === null) return <span>{NONE}</span>;
  return (
    <Tag color={elapsedColor(s)} style={NO_WRAP} data-testid={testId}>
      {intl.formatMessage(m.seconds, { seconds: s })}
    </Tag>
  );
}

export function ProgressCell({ progress, status }: { progress: string; status: string }) {
  const percent = progressPercent(progress);
  if (percent === null) return <span>{NONE}</span>;
  const state = status === 'FAILURE' ? 'exception' : status === 'SUCCESS' ? 'success' : percent < 100 ? 'active' : 'normal';
  return <Progress percent={percent} size="small" status={state} style={{ width: 120, margin: 0 }} />;
}

/** A long text cut to one line; a click opens a dialog with all of it (spec 3 §2.3). */
export function LongText({ text, title, testId }: { text: string; title: string; testId?: string }) {
  const intl = useIntl();
  const [open, setOpen] = useState(false);
  if (!text) return <span>{NONE}</span>;
  return (
    <>
      <Tooltip title={intl.formatMessage(m.showAll)}>
        <Button
          type="link"
          size="small"
          style={{ padding: 0, height: 'auto', maxWidth: 220 }}
          onClick={() => setOpen(true)}
          data-testid={testId}
        >
          <span style={{ display: 'block', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>{text}</span>
        </Button>
      </Tooltip>
      {open && (
        <Modal
          open
          title={title}
          onCancel={() => setOpen(false)}
          footer={
            <Button type="primary" onClick={() => setOpen(false)}>
              {intl.formatMessage(m.close)}
            </Button>
          }
        >
          <Typography.Paragraph copyable style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', marginBottom: 0 }}>
            {text}
          </Typography.Paragraph>
        </Modal>
      )}
    </>
  );
}
