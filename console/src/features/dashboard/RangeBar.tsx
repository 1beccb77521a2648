/** The dashboard's filters: range preset or custom days, granularity, user name (admin), refresh. */
import { ReloadOutlined } from '@ant-design/icons';
import { Button, DatePicker, Flex, Input, Segmented, Select, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useIntl } from 'react-intl';
import { useIsMobile } from '../../shared/useIsMobile';
import { GRANULARITY, type Granularity, type RangePreset } from './constants';
import { dashboard as m } from './messages';
import type { TimeRange } from './types';

export type RangeChoice = RangePreset | 'custom';

export interface RangeBarProps {
  choice: RangeChoice;
  range: TimeRange;
  granularity: Granularity;
  /** Shown to admins only. */
  username?: string;
  onChoice: (c: RangeChoice) => void;
  onDays: (first: Dayjs, last: Dayjs) => void;
  onGranularity: (g: Granularity) => void;
  onUsername?: (name: string) => void;
  onRefresh: () => void;
}

const PRESETS = [
  { value: '24h', label: m.last24h },
  { value: '7d', label: m.last7d },
  { value: '30d', label: m.last30d },
  { value: 'custom', label: m.custom },
] as const;

const FORMAT = 'YYYY-MM-DD HH:mm';

export function RangeBar(p: RangeBarProps) {
  const intl = useIntl();
  const mobile = useIsMobile();
  const first = dayjs.unix(p.range.start);
  const last = dayjs.unix(p.range.end);
  const future = (d: Dayjs) => d.isAfter(dayjs().endOf('day'));
  const presets = PRESETS.map((x) => ({ value: x.value, label: intl.formatMessage(x.label) }));
  return (
    <Flex vertical gap={8}>
      <Flex gap={8} wrap align="center">
        {mobile ? (
          <Select<RangeChoice>
            value={p.choice}
            onChange={p.onChoice}
            options={presets}
            style={{ width: 160 }}
            data-testid="dashboard-preset"
          />
        ) : (
          <Segmented<RangeChoice> value={p.choice} onChange={p.onChoice} options={presets} data-testid="dashboard-preset" />
        )}
        <Segmented<Granularity>
          value={p.granularity}
          onChange={p.onGranularity}
          aria-label={intl.formatMessage(m.granularity)}
          options={Object.values(GRANULARITY).map((g) => ({ value: g, label: intl.formatMessage(m[g]) }))}
          data-testid="dashboard-granularity"
        />
        {p.onUsername && (
          <Input.Search
            allowClear
            style={{ width: 240, maxWidth: '100%' }}
            placeholder={intl.formatMessage(m.username)}
            defaultValue={p.username}
            onSearch={(v) => p.onUsername?.(v)}
            data-testid="dashboard-username"
          />
        )}
        <Button icon={<ReloadOutlined />} onClick={p.onRefresh} data-testid="dashboard-refresh">
          {intl.formatMessage(m.refresh)}
        </Button>
      </Flex>
      {p.choice === 'custom' &&
        (mobile ? (
          <Flex gap={8} wrap>
            <DatePicker
              value={first}
              allowClear={false}
              disabledDate={future}
              placeholder={intl.formatMessage(m.startDay)}
              onChange={(d) => d && p.onDays(d, last)}
              data-testid="dashboard-start-day"
            />
            <DatePicker
              value={last}
              allowClear={false}
              disabledDate={future}
              placeholder={intl.formatMessage(m.endDay)}
              onChange={(d) => d && p.onDays(first, d)}
              data-testid="dashboard-end-day"
            />
          </Flex>
        ) : (
          <DatePicker.RangePicker
            value={[first, last]}
            allowClear={false}
            disabledDate={future}
            placeholder={[intl.formatMessage(m.startDay), intl.formatMessage(m.endDay)]}
            onChange={(v) => v?.[0] && v[1] && p.onDays(v[0], v[1])}
            style={{ maxWidth: 320 }}
            data-testid="dashboard-days"
          />
        ))}
      <Typography.Text type="secondary" data-testid="dashboard-range-text">
        {intl.formatMessage(m.rangeText, { start: first.format(FORMAT), end: last.format(FORMAT) })}
      </Typography.Text>
    </Flex>
  );
}
