/**
 * The usage log's filters (spec 3 §2.2): time range (two pickers on a phone), token, model,
 * group, request id; channel id and user name for admins; the log type. Applied on Search or
 * Enter; the type applies as soon as it is chosen.
 */
import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { AutoComplete, Button, DatePicker, Flex, Input, Select } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { useIsMobile } from '../../shared/useIsMobile';
import { useGetUserModelsQuery } from '../personal/api';
import { useGetSelfGroupsQuery } from '../tokens/api';
import { useGetGroupsQuery } from '../users/api';
import { LOG_TIME_FORMAT, LOG_TYPE_OPTIONS, type LogType } from './constants';
import { filters as m } from './messages';
import { typeOptionLabel } from './rules';
import type { LogFilters } from './types';

interface Props {
  admin: boolean;
  value: LogFilters;
  /** Called with the filters to apply. */
  onApply: (f: LogFilters) => void;
  /** Called to go back to the default filters. */
  onReset: () => LogFilters;
}

const toDay = (s: number | null): Dayjs | null => (s === null ? null : dayjs.unix(s));
const toSeconds = (d: Dayjs | null | undefined): number | null => (d ? d.unix() : null);

const options = (names: readonly string[]) => names.map((n) => ({ value: n }));

/** Suggestions for the model and group fields (typing anything else is allowed). */
function useSuggestions(admin: boolean) {
  const { data: models = [] } = useGetUserModelsQuery();
  const { data: allGroups = [] } = useGetGroupsQuery(undefined, { skip: !admin });
  const { data: ownGroups = {} } = useGetSelfGroupsQuery(undefined, { skip: admin });
  return { models, groups: admin ? allGroups : Object.keys(ownGroups) };
}

export function LogFilterBar({ admin, value, onApply, onReset }: Props) {
  const intl = useIntl();
  const mobile = useIsMobile();
  const [draft, setDraft] = useState<LogFilters>(value);
  const { models, groups } = useSuggestions(admin);
  const set = (patch: Partial<LogFilters>) => setDraft((d) => ({ ...d, ...patch }));
  const apply = () => onApply(draft);
  const width = mobile ? '100%' : 180;

  const text = (key: 'tokenName' | 'requestId' | 'channel' | 'username', label: string, w: number | string = width) => (
    <Input
      allowClear
      style={{ width: w }}
      placeholder={label}
      aria-label={label}
      value={draft[key]}
      onChange={(e) => set({ [key]: e.target.value })}
      onPressEnter={apply}
      data-testid={`logs-filter-${key}`}
    />
  );
  const suggest = (key: 'modelName' | 'group', label: string, names: readonly string[]) => (
    <AutoComplete
      allowClear
      style={{ width }}
      placeholder={label}
      aria-label={label}
      value={draft[key]}
      options={options(names)}
      showSearch={{
        filterOption: (input, o) =>
          String(o?.value ?? '')
            .toLowerCase()
            .includes(input.toLowerCase()),
      }}
      onChange={(v) => set({ [key]: v ?? '' })}
      onInputKeyDown={(e) => {
        if (e.key === 'Enter') apply();
      }}
      data-testid={`logs-filter-${key}`}
    />
  );

  return (
    <Flex gap={8} wrap vertical={mobile} data-testid="logs-filters">
      {mobile ? (
        <>
          <DatePicker
            showTime
            format={LOG_TIME_FORMAT}
            style={{ width: '100%' }}
            placeholder={intl.formatMessage(m.start)}
            value={toDay(draft.start)}
            onChange={(d) => set({ start: toSeconds(d) })}
            data-testid="logs-filter-start"
          />
          <DatePicker
            showTime
            format={LOG_TIME_FORMAT}
            style={{ width: '100%' }}
            placeholder={intl.formatMessage(m.end)}
            value={toDay(draft.end)}
            onChange={(d) => set({ end: toSeconds(d) })}
            data-testid="logs-filter-end"
          />
        </>
      ) : (
        <DatePicker.RangePicker
          showTime
          allowEmpty={[true, true]}
          format={LOG_TIME_FORMAT}
          aria-label={intl.formatMessage(m.range)}
          placeholder={[intl.formatMessage(m.start), intl.formatMessage(m.end)]}
          value={[toDay(draft.start), toDay(draft.end)]}
          onChange={(r) => set({ start: toSeconds(r?.[0]), end: toSeconds(r?.[1]) })}
          data-testid="logs-filter-range"
        />
      )}
      {text('tokenName', intl.formatMessage(m.tokenName))}
      {suggest('modelName', intl.formatMessage(m.modelName), models)}
      {suggest('group', intl.formatMessage(m.group), groups)}
      {text('requestId', intl.formatMessage(m.requestId), mobile ? '100%' : 260)}
      {admin && text('channel', intl.formatMessage(m.channel), mobile ? '100%' : 120)}
      {admin && text('username', intl.formatMessage(m.username))}
      <Select<LogType>
        style={{ width: mobile ? '100%' : 150 }}
        aria-label={intl.formatMessage(m.type)}
        value={draft.type}
        options={LOG_TYPE_OPTIONS.map((t) => ({ value: t, label: intl.formatMessage(typeOptionLabel(t)) }))}
        onChange={(type) => {
          const next = { ...draft, type };
          setDraft(next);
          onApply(next);
        }}
        data-testid="logs-filter-type"
      />
      <Flex gap={8}>
        <Button type="primary" icon={<SearchOutlined />} onClick={apply} data-testid="logs-search">
          {intl.formatMessage(m.search)}
        </Button>
        <Button icon={<ReloadOutlined />} onClick={() => setDraft(onReset())} data-testid="logs-reset">
          {intl.formatMessage(m.reset)}
        </Button>
      </Flex>
    </Flex>
  );
}
