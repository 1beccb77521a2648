/**
 * The filters of the drawing and task logs (spec 3 §2.3, §2.4): channel id (admins), task id,
 * status (any when cleared), platform (task log only, any when cleared), start time and end
 * time. Applied on Search or Enter; Reset goes back to the log's default filters.
 */
import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, DatePicker, Flex, Input, Select } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useIntl, type IntlShape } from 'react-intl';
import { useIsMobile } from '../../shared/useIsMobile';
import { DRAWING_STATUSES, JOB_TIME_FORMAT, TASK_PLATFORMS, TASK_STATUSES } from './constants';
import { filters as m } from './messages';
import { drawingStatusLabel, taskPlatformLabel, taskStatusLabel, type Label } from './rules';
import type { JobFilters } from './types';

/** Which log the bar filters; also the prefix of its test ids. */
export type JobLogKind = 'drawing' | 'task';

interface Props {
  admin: boolean;
  value: JobFilters;
  onApply: (f: JobFilters) => void;
  /** Goes back to the default filters and answers them. */
  onReset: () => JobFilters;
  kind: JobLogKind;
}

const toDay = (s: number | null): Dayjs | null => (s === null ? null : dayjs.unix(s));
const toSeconds = (d: Dayjs | null | undefined): number | null => (d ? d.unix() : null);

const labelText = (intl: IntlShape, label: Label) => ('message' in label ? intl.formatMessage(label.message) : label.text);

/** The statuses a log can be filtered by ('' of a task, "being submitted", is not one of them). */
function statusOptions(intl: IntlShape, kind: JobLogKind) {
  if (kind === 'drawing') return DRAWING_STATUSES.map((s) => ({ value: s, label: labelText(intl, drawingStatusLabel(s)) }));
  return TASK_STATUSES.filter((s) => s !== '').map((s) => ({ value: s, label: labelText(intl, taskStatusLabel(s)) }));
}

export function JobFilterBar({ admin, value, onApply, onReset, kind }: Props) {
  const testId = kind;
  const intl = useIntl();
  const mobile = useIsMobile();
  const [draft, setDraft] = useState(value);
  const set = (patch: Partial<JobFilters>) => setDraft((d) => ({ ...d, ...patch }));
  const apply = () => onApply(draft);
  const full = mobile ? '100%' : undefined;

  const text = (key: 'channel' | 'jobId', label: string, width: number) => (
    <Input
      allowClear
      style={{ width: full ?? width }}
      placeholder={label}
      aria-label={label}
      value={draft[key]}
      onChange={(e) => set({ [key]: e.target.value })}
      onPressEnter={apply}
      data-testid={`${testId}-filter-${key}`}
    />
  );
  const choice = (key: 'status' | 'platform', label: string, options: { value: string; label: string }[]) => (
    <Select
      allowClear
      style={{ width: full ?? 160 }}
      popupMatchSelectWidth={false}
      placeholder={label}
      aria-label={label}
      value={draft[key] || undefined}
      options={options}
      onChange={(v?: string) => set({ [key]: v ?? '' })}
      data-testid={`${testId}-filter-${key}`}
    />
  );
  const time = (key: 'start' | 'end', label: string) => (
    <DatePicker
      showTime
      format={JOB_TIME_FORMAT}
      style={{ width: full ?? 200 }}
      placeholder={label}
      aria-label={label}
      value={toDay(draft[key])}
      onChange={(d) => set({ [key]: toSeconds(d) })}
      data-testid={`${testId}-filter-${key}`}
    />
  );

  return (
    <Flex gap={8} wrap vertical={mobile} style={{ marginBottom: 16 }} data-testid={`${testId}-filters`}>
      {admin && text('channel', intl.formatMessage(m.channel), 120)}
      {text('jobId', intl.formatMessage(m.taskId), 240)}
      {choice('status', intl.formatMessage(m.status), statusOptions(intl, kind))}
      {kind === 'task' &&
        choice(
          'platform',
          intl.formatMessage(m.platform),
          TASK_PLATFORMS.map((p) => ({ value: p, label: labelText(intl, taskPlatformLabel(p)) })),
        )}
      {time('start', intl.formatMessage(m.start))}
      {time('end', intl.formatMessage(m.end))}
      <Flex gap={8}>
        <Button type="primary" icon={<SearchOutlined />} onClick={apply} data-testid={`${testId}-search`}>
          {intl.formatMessage(m.search)}
        </Button>
        <Button icon={<ReloadOutlined />} onClick={() => setDraft(onReset())} data-testid={`${testId}-reset`}>
          {intl.formatMessage(m.reset)}
        </Button>
      </Flex>
    </Flex>
  );
}
