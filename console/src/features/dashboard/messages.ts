import { defineMessages } from '../../i18n/define';

export const dashboard = defineMessages({
  title: { id: 'dashboard.title', defaultMessage: 'Dashboard', description: 'Dashboard page title' },
  last24h: { id: 'dashboard.range.last24h', defaultMessage: 'Last 24 hours', description: 'Range preset: 24 hours' },
  last7d: { id: 'dashboard.range.last7d', defaultMessage: 'Last 7 days', description: 'Range preset: 7 days' },
  last30d: { id: 'dashboard.range.last30d', defaultMessage: 'Last 30 days', description: 'Range preset: 30 days' },
  custom: { id: 'dashboard.range.custom', defaultMessage: 'Custom', description: 'Range preset: custom days' },
  startDay: { id: 'dashboard.range.startDay', defaultMessage: 'Start day', description: 'Custom range: first day' },
  endDay: { id: 'dashboard.range.endDay', defaultMessage: 'End day', description: 'Custom range: last day' },
  rangeEmpty: {
    id: 'dashboard.range.empty',
    defaultMessage: 'The end of the range is before its start',
    description: 'Range validation: end before start',
  },
  rangeTooLong: {
    id: 'dashboard.range.tooLong',
    defaultMessage: 'Choose at most {days} days',
    description: 'Range validation: own dashboard range limit',
  },
  granularity: { id: 'dashboard.granularity', defaultMessage: 'Granularity', description: 'Granularity selector label' },
  hour: { id: 'dashboard.granularity.hour', defaultMessage: 'Hour', description: 'Granularity: hour' },
  day: { id: 'dashboard.granularity.day', defaultMessage: 'Day', description: 'Granularity: day' },
  week: { id: 'dashboard.granularity.week', defaultMessage: 'Week', description: 'Granularity: week' },
  username: {
    id: 'dashboard.username',
    defaultMessage: 'User name (empty: all users)',
    description: 'Admin filter: one user only',
  },
  refresh: { id: 'dashboard.refresh', defaultMessage: 'Refresh', description: 'Reload the data up to now' },
  rangeText: {
    id: 'dashboard.rangeText',
    defaultMessage: 'From {start} to {end}',
    description: 'The range the data covers',
  },
  empty: {
    id: 'dashboard.empty',
    defaultMessage: 'No consumption in this period',
    description: 'Empty state: no data in the range',
  },
  other: { id: 'dashboard.other', defaultMessage: 'Other', description: 'Series of everything beyond the top ones' },
});

export const summary = defineMessages({
  quota: { id: 'dashboard.summary.quota', defaultMessage: 'Consumption', description: 'Summary: consumed quota in range' },
  count: { id: 'dashboard.summary.count', defaultMessage: 'Calls', description: 'Summary: requests in range' },
  tokens: { id: 'dashboard.summary.tokens', defaultMessage: 'Tokens', description: 'Summary: tokens in range' },
  rpm: { id: 'dashboard.summary.rpm', defaultMessage: 'Average RPM', description: 'Summary: average requests per minute' },
  tpm: { id: 'dashboard.summary.tpm', defaultMessage: 'Average TPM', description: 'Summary: average tokens per minute' },
});

export const charts = defineMessages({
  byModel: { id: 'dashboard.charts.byModel', defaultMessage: 'By model', description: 'Section: data by model' },
  byUser: { id: 'dashboard.charts.byUser', defaultMessage: 'By user', description: 'Section: data by user (admin)' },
  quota: { id: 'dashboard.charts.quota', defaultMessage: 'Consumption', description: 'Metric: consumed quota' },
  count: { id: 'dashboard.charts.count', defaultMessage: 'Calls', description: 'Metric: request count' },
  tokens: { id: 'dashboard.charts.tokens', defaultMessage: 'Tokens', description: 'Metric: tokens used' },
  trend: { id: 'dashboard.charts.trend', defaultMessage: 'Over time', description: 'Chart: metric over time' },
  share: { id: 'dashboard.charts.share', defaultMessage: 'Share', description: 'Chart: share of the metric' },
  model: { id: 'dashboard.charts.model', defaultMessage: 'Model', description: 'Table column: model' },
  user: { id: 'dashboard.charts.user', defaultMessage: 'User', description: 'Table column: user' },
  percent: { id: 'dashboard.charts.percent', defaultMessage: 'Share of consumption', description: 'Table column: share' },
});
