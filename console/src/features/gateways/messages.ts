import { defineMessages } from '../../i18n/define';

export const gateways = defineMessages({
  title: { id: 'gateways.title', defaultMessage: 'Gateways', description: 'Gateways page title' },
  refresh: { id: 'gateways.refresh', defaultMessage: 'Refresh', description: 'Refresh button' },
  autoRefresh: {
    id: 'gateways.autoRefresh',
    defaultMessage: 'Refreshes every {seconds} seconds',
    description: 'Hint next to the refresh button',
  },
});

export const feed = defineMessages({
  title: { id: 'gateways.feed.title', defaultMessage: 'Config feed', description: 'Card: gateways following the config feed' },
  hint: {
    id: 'gateways.feed.hint',
    defaultMessage:
      'The gateways that follow the control plane’s config feed, the version each one applied and when it was last heard from.',
    description: 'Config feed card text',
  },
  newestVersion: {
    id: 'gateways.feed.newestVersion',
    defaultMessage: 'Newest config version',
    description: 'Statistic: the newest config version',
  },
  connectedCount: {
    id: 'gateways.feed.connectedCount',
    defaultMessage: 'Connected gateways',
    description: 'Statistic: connected / all gateways',
  },
  empty: {
    id: 'gateways.feed.empty',
    defaultMessage: 'No gateway follows the config feed yet',
    description: 'Empty gateway table',
  },
});

export const feedColumns = defineMessages({
  gatewayId: { id: 'gateways.columns.gatewayId', defaultMessage: 'Gateway ID', description: 'Column: gateway id' },
  connection: { id: 'gateways.columns.connection', defaultMessage: 'Connection', description: 'Column: connected or not' },
  connected: { id: 'gateways.columns.connected', defaultMessage: 'Connected', description: 'Tag: watch stream open' },
  disconnected: {
    id: 'gateways.columns.disconnected',
    defaultMessage: 'Disconnected',
    description: 'Tag: watch stream closed',
  },
  version: { id: 'gateways.columns.version', defaultMessage: 'Applied version', description: 'Column: applied config version' },
  lag: { id: 'gateways.columns.lag', defaultMessage: 'Lag', description: 'Column: versions behind the newest' },
  upToDate: { id: 'gateways.columns.upToDate', defaultMessage: 'Up to date', description: 'Lag 0' },
  behind: {
    id: 'gateways.columns.behind',
    defaultMessage: '{lag, plural, one {# version behind} other {# versions behind}}',
    description: 'Lag above 0',
  },
  lastContact: { id: 'gateways.columns.lastContact', defaultMessage: 'Last contact', description: 'Column: last contact' },
  never: { id: 'gateways.columns.never', defaultMessage: 'Never', description: 'No contact yet' },
});

export const rejections = defineMessages({
  title: {
    id: 'gateways.rejections.title',
    defaultMessage: 'Refused usage records',
    description: 'Card: usage records the control plane refused',
  },
  explain: {
    id: 'gateways.rejections.explain',
    defaultMessage:
      'Usage records a gateway reported that the control plane refused (for example a negative quota, a token of another user or a NUL character) were neither logged nor charged; our own gateways never send such records, so each one is worth an alert.',
    description: 'What refused usage records are',
  },
  empty: {
    id: 'gateways.rejections.empty',
    defaultMessage: 'No refused usage records: every record the gateways reported was accepted',
    description: 'Empty refused records table',
  },
  time: { id: 'gateways.rejections.time', defaultMessage: 'Time', description: 'Column: when it was refused' },
  gateway: { id: 'gateways.rejections.gateway', defaultMessage: 'Gateway', description: 'Column: reporting gateway' },
  requestId: { id: 'gateways.rejections.requestId', defaultMessage: 'Request ID', description: 'Column: request id' },
  userId: { id: 'gateways.rejections.userId', defaultMessage: 'User ID', description: 'Column: user id' },
  tokenId: { id: 'gateways.rejections.tokenId', defaultMessage: 'Token ID', description: 'Column: token id' },
  quota: { id: 'gateways.rejections.quota', defaultMessage: 'Quota', description: 'Column: quota it tried to charge' },
  reason: { id: 'gateways.rejections.reason', defaultMessage: 'Reason', description: 'Column: why it was refused' },
  record: {
    id: 'gateways.rejections.record',
    defaultMessage: 'The record as received',
    description: 'Expanded row: the raw record',
  },
});
