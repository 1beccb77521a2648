/**
 * /detail: the data dashboard. The caller's own consumption by model (at most 30 days); admins see
 * everyone's (or one user's) by model and a by-user section. Range presets or custom days,
 * hour/day/week buckets, totals, stacked bars over time, shares and per-name tables.
 */
import { Alert, Card, Flex, Typography } from 'antd';
import type { Dayjs } from 'dayjs';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { useCurrentUser } from '../../app/hooks';
import { isAdmin } from '../../shared/constants';
import { useQuotaDisplay, useStatus } from '../status/useStatus';
import { useGetAllDataQuery, useGetOwnDataQuery, useGetUserDataQuery } from './api';
import type { Granularity } from './constants';
import { charts as cm, dashboard as m } from './messages';
import { dayRange, defaultGranularity, defaultPreset, presetRange, rangeQuery, validateRange } from './range';
import { RangeBar, type RangeChoice } from './RangeBar';
import { SeriesSection } from './SeriesSection';
import { fromModels, fromUsers, totalsOf } from './shape';
import { SummaryCards } from './SummaryCards';
import type { TimeRange } from './types';

const nowSeconds = () => Math.floor(Date.now() / 1000);

export function DashboardPage() {
  const intl = useIntl();
  const admin = isAdmin(useCurrentUser()?.role);
  const display = useQuotaDisplay();
  const { status, isLoading: statusLoading } = useStatus();
  // Until the viewer picks, the range and granularity follow the settings (DataExportDefaultTime).
  const setting = defaultGranularity(status.data_export_default_time);
  const statusReady = !statusLoading || status.data_export_default_time !== undefined;
  const [openedAt] = useState(nowSeconds);
  const [picked, setPicked] = useState<{ choice: RangeChoice; range: TimeRange } | null>(null);
  const [pickedGranularity, setGranularity] = useState<Granularity | null>(null);
  const granularity = pickedGranularity ?? setting;
  const choice = picked?.choice ?? defaultPreset(setting);
  const range = useMemo(() => picked?.range ?? presetRange(defaultPreset(setting), openedAt), [picked, setting, openedAt]);
  const [username, setUsername] = useState('');

  const problem = validateRange(range, admin);
  const query = rangeQuery(range, admin ? username : '');
  const skip = problem !== null || !statusReady;
  const own = useGetOwnDataQuery(query, { skip: admin || skip });
  const all = useGetAllDataQuery(query, { skip: !admin || skip });
  const users = useGetUserDataQuery(query, { skip: !admin || skip });
  const models = admin ? all : own;
  const modelRows = useMemo(() => fromModels(models.data ?? []), [models.data]);
  const userRows = useMemo(() => fromUsers(users.data ?? []), [users.data]);
  const totals = useMemo(() => totalsOf(modelRows), [modelRows]);

  const onChoice = (c: RangeChoice) => setPicked({ choice: c, range: c === 'custom' ? range : presetRange(c, nowSeconds()) });
  const onDays = (first: Dayjs, last: Dayjs) =>
    setPicked({ choice: 'custom', range: dayRange(first.unix(), last.unix(), nowSeconds()) });
  /** Moves the range up to now; a range already ending in the past is fetched again. */
  const onRefresh = () => {
    const next = choice === 'custom' ? dayRange(range.start, range.end, nowSeconds()) : presetRange(choice, nowSeconds());
    if (next.start !== range.start || next.end !== range.end) setPicked({ choice, range: next });
    else if (!skip) {
      void models.refetch();
      if (admin) void users.refetch();
    }
  };

  return (
    <Flex vertical gap={16} data-testid="dashboard-page">
      <Typography.Title level={4} style={{ margin: 0 }}>
        {intl.formatMessage(m.title)}
      </Typography.Title>
      <Card size="small">
        <RangeBar
          choice={choice}
          range={range}
          granularity={granularity}
          username={username}
          onChoice={onChoice}
          onDays={onDays}
          onGranularity={setGranularity}
          onUsername={admin ? setUsername : undefined}
          onRefresh={onRefresh}
        />
      </Card>
      {problem ? (
        <Alert
          type="error"
          showIcon
          title={intl.formatMessage(problem.message, problem.values)}
          data-testid="dashboard-range-problem"
        />
      ) : (
        <>
          <SummaryCards totals={totals} range={range} display={display} />
          <SeriesSection
            title={cm.byModel}
            nameTitle={cm.model}
            rows={modelRows}
            range={range}
            granularity={granularity}
            display={display}
            loading={models.isFetching}
            testId="dashboard-models"
          />
          {admin && (
            <SeriesSection
              title={cm.byUser}
              nameTitle={cm.user}
              rows={userRows}
              range={range}
              granularity={granularity}
              display={display}
              loading={users.isFetching}
              testId="dashboard-users"
            />
          )}
        </>
      )}
    </Flex>
  );
}
