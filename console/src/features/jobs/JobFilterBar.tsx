/**
 * The filters of the drawing and task logs (spec 3 §2.3, §2.4): channel id (admins), task id,
 * start time and end time. Applied on Search or Enter; Reset goes back to the log's default window.
 */
import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, DatePicker, Flex, Input } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { useIsMobile } from '../../shared/useIsMobile';
import { JOB_TIME_FORMAT } from './constants';
import { filters as m } from './messages';
import type { JobFilters } from './types';

interface Props {
  admin: boolean;
  value: JobFilters;
  onApply: (f: JobFilters) => void;
  /** Goes back to the default filters and answers them. */
  onReset: () => JobFilters;
  /** Test id prefix: `drawing` or `task`. */
  testId: string;
}

const toDay = (s: number | null): Dayjs | null => (s === null ? null : dayjs.unix(s));
const toSeconds = (d: Dayjs | null | undefined): number | null => (d ? d.unix() : null);

export function JobFilterBar({ admin, value, onApply, onReset, testId }: Props) {
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
