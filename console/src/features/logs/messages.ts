import { defineMessages } from '../../i18n/define';

export const page = defineMessages({
  title: { id: 'logs.title', defaultMessage: 'Usage logs', description: 'Usage log page title' },
  refresh: { id: 'logs.refresh', defaultMessage: 'Refresh', description: 'Reload the table and the summary' },
  columnSettings: { id: 'logs.columnSettings', defaultMessage: 'Columns', description: 'Open the column settings dialog' },
  filters: { id: 'logs.filtersToggle', defaultMessage: 'Filters', description: 'Phone: folds the filters away' },
  empty: {
    id: 'logs.empty',
    defaultMessage: 'No records in this range',
    description: 'Empty table: nothing matches the filters',
  },
});

export const summary = defineMessages({
  quota: { id: 'logs.summary.quota', defaultMessage: 'Quota spent', description: 'Summary: quota consumed in the range' },
  tokens: { id: 'logs.summary.tokens', defaultMessage: 'Tokens', description: 'Summary: total tokens in the range' },
  promptTokens: {
    id: 'logs.summary.promptTokens',
    defaultMessage: 'Input tokens',
    description: 'Summary: prompt tokens in the range',
  },
  completionTokens: {
    id: 'logs.summary.completionTokens',
    defaultMessage: 'Output tokens',
    description: 'Summary: completion tokens in the range',
  },
  rpm: {
    id: 'logs.summary.rpm',
    defaultMessage: 'RPM',
    description: 'Summary: requests per minute (averaged over the range; the last minute without a start time)',
  },
  tpm: {
    id: 'logs.summary.tpm',
    defaultMessage: 'TPM',
    description: 'Summary: tokens per minute (averaged over the range; the last minute without a start time)',
  },
});

export const filters = defineMessages({
  range: { id: 'logs.filters.range', defaultMessage: 'Time range', description: 'Filter: time range' },
  start: { id: 'logs.filters.start', defaultMessage: 'Start time', description: 'Filter: start time (mobile)' },
  end: { id: 'logs.filters.end', defaultMessage: 'End time', description: 'Filter: end time (mobile)' },
  tokenName: { id: 'logs.filters.tokenName', defaultMessage: 'Token name', description: 'Filter: token name' },
  modelName: { id: 'logs.filters.modelName', defaultMessage: 'Model name', description: 'Filter: model name' },
  group: { id: 'logs.filters.group', defaultMessage: 'Group', description: 'Filter: group' },
  requestId: { id: 'logs.filters.requestId', defaultMessage: 'Request ID', description: 'Filter: request id' },
  channel: { id: 'logs.filters.channel', defaultMessage: 'Channel ID', description: 'Filter: channel id (admin)' },
  username: { id: 'logs.filters.username', defaultMessage: 'User name', description: 'Filter: user name (admin)' },
  type: { id: 'logs.filters.type', defaultMessage: 'Log type', description: 'Filter: log type' },
  search: { id: 'logs.filters.search', defaultMessage: 'Search', description: 'Apply the filters' },
  reset: { id: 'logs.filters.reset', defaultMessage: 'Reset', description: 'Back to the default filters' },
  channelInvalid: {
    id: 'logs.filters.channelInvalid',
    defaultMessage: 'The channel ID must be a positive whole number',
    description: 'Channel filter is not a number',
  },
  rangeInvalid: {
    id: 'logs.filters.rangeInvalid',
    defaultMessage: 'The start time must be before the end time',
    description: 'Time range out of order',
  },
});

export const types = defineMessages({
  all: { id: 'logs.type.all', defaultMessage: 'All', description: 'Log type 0 (selector only)' },
  topUp: { id: 'logs.type.topUp', defaultMessage: 'Top-up', description: 'Log type 1' },
  consume: { id: 'logs.type.consume', defaultMessage: 'Consume', description: 'Log type 2' },
  manage: { id: 'logs.type.manage', defaultMessage: 'Manage', description: 'Log type 3' },
  system: { id: 'logs.type.system', defaultMessage: 'System', description: 'Log type 4' },
  checkIn: { id: 'logs.type.checkIn', defaultMessage: 'Check-in', description: 'Log type 5' },
  error: { id: 'logs.type.error', defaultMessage: 'Failed request', description: 'Log type 6' },
  unknown: { id: 'logs.type.unknown', defaultMessage: 'Unknown', description: 'Any other log type' },
});

export const columns = defineMessages({
  time: { id: 'logs.columns.time', defaultMessage: 'Time', description: 'Column: created time' },
  channel: { id: 'logs.columns.channel', defaultMessage: 'Channel', description: 'Column: channel (admin)' },
  user: { id: 'logs.columns.user', defaultMessage: 'User', description: 'Column: user (admin)' },
  token: { id: 'logs.columns.token', defaultMessage: 'Token', description: 'Column: token name' },
  group: { id: 'logs.columns.group', defaultMessage: 'Group', description: 'Column: group' },
  type: { id: 'logs.columns.type', defaultMessage: 'Type', description: 'Column: log type' },
  model: { id: 'logs.columns.model', defaultMessage: 'Model', description: 'Column: model' },
  useTime: {
    id: 'logs.columns.useTime',
    defaultMessage: 'Time / first token',
    description: 'Column: time to complete and time to first token',
  },
  prompt: { id: 'logs.columns.prompt', defaultMessage: 'Prompt', description: 'Column: prompt tokens' },
  completion: { id: 'logs.columns.completion', defaultMessage: 'Completion', description: 'Column: completion tokens' },
  cost: { id: 'logs.columns.cost', defaultMessage: 'Cost', description: 'Column: quota spent' },
  retry: { id: 'logs.columns.retry', defaultMessage: 'Retry', description: 'Column: channels tried (admin)' },
  details: { id: 'logs.columns.details', defaultMessage: 'Details', description: 'Column: details summary' },
  seconds: { id: 'logs.columns.seconds', defaultMessage: '{seconds} s', description: 'A duration in seconds' },
  stream: { id: 'logs.columns.stream', defaultMessage: 'Stream', description: 'Badge: streamed answer' },
  nonStream: { id: 'logs.columns.nonStream', defaultMessage: 'Non-stream', description: 'Badge: whole answer' },
  firstToken: {
    id: 'logs.columns.firstToken',
    defaultMessage: 'First token after {seconds} s',
    description: 'Tooltip of the first-token badge',
  },
  totalTime: {
    id: 'logs.columns.totalTime',
    defaultMessage: 'Completed after {seconds} s',
    description: 'Tooltip of the time-to-complete badge',
  },
  mappedTo: {
    id: 'logs.columns.mappedTo',
    defaultMessage: 'Served by {model}',
    description: 'The upstream model a mapping chose',
  },
  retried: {
    id: 'logs.columns.retried',
    defaultMessage: '{count, plural, one {# retry} other {# retries}}',
    description: 'How many further channels were tried',
  },
  ratios: {
    id: 'logs.columns.ratios',
    defaultMessage: 'Model ratio {model}, completion ratio {completion}, group ratio {group}',
    description: 'Details summary of a token-priced call',
  },
  fixedPrice: {
    id: 'logs.columns.fixedPrice',
    defaultMessage: 'Price per call ${price}, group ratio {group}',
    description: 'Details summary of a per-call priced call',
  },
  copyHint: { id: 'logs.columns.copyHint', defaultMessage: 'Click to copy', description: 'Tooltip of copyable tags' },
});

export const details = defineMessages({
  title: { id: 'logs.details.title', defaultMessage: 'Record details', description: 'Expanded row heading' },
  requestId: { id: 'logs.details.requestId', defaultMessage: 'Request ID', description: 'Detail: request id' },
  content: { id: 'logs.details.content', defaultMessage: 'Log detail', description: 'Detail: the record text' },
  channel: { id: 'logs.details.channel', defaultMessage: 'Channel', description: 'Detail: channel (admin)' },
  channelsTried: {
    id: 'logs.details.channelsTried',
    defaultMessage: 'Channels tried',
    description: 'Detail: channel ids in the order they were tried (admin)',
  },
  retries: { id: 'logs.details.retries', defaultMessage: 'Retries', description: 'Detail: number of retries (admin)' },
  endpoint: { id: 'logs.details.endpoint', defaultMessage: 'Endpoint', description: 'Detail: the relay endpoint called' },
  conversion: {
    id: 'logs.details.conversion',
    defaultMessage: 'Conversion',
    description: "Detail: the client's dialect and the channel's protocol when they differ",
  },
  mode: { id: 'logs.details.mode', defaultMessage: 'Answer', description: 'Detail: stream or non-stream' },
  useTime: { id: 'logs.details.useTime', defaultMessage: 'Time to complete', description: 'Detail: total time' },
  frt: { id: 'logs.details.frt', defaultMessage: 'First response', description: 'Detail: time to first token' },
  requestedModel: {
    id: 'logs.details.requestedModel',
    defaultMessage: 'Requested and billed model',
    description: 'Detail: model the client asked for (a mapping applied)',
  },
  actualModel: {
    id: 'logs.details.actualModel',
    defaultMessage: 'Actual model',
    description: 'Detail: model the upstream served (a mapping applied)',
  },
  modelRatio: { id: 'logs.details.modelRatio', defaultMessage: 'Model ratio', description: 'Detail: model ratio' },
  completionRatio: {
    id: 'logs.details.completionRatio',
    defaultMessage: 'Completion ratio',
    description: 'Detail: completion ratio',
  },
  groupRatio: { id: 'logs.details.groupRatio', defaultMessage: 'Group ratio', description: 'Detail: group ratio' },
  userGroupRatio: {
    id: 'logs.details.userGroupRatio',
    defaultMessage: 'User group ratio',
    description: 'Detail: ratio of the user group for this group',
  },
  modelPrice: {
    id: 'logs.details.modelPrice',
    defaultMessage: 'Price per call',
    description: 'Detail: fixed price per call in USD',
  },
  cacheTokens: { id: 'logs.details.cacheTokens', defaultMessage: 'Cache tokens', description: 'Detail: cached prompt tokens' },
  cacheRatio: { id: 'logs.details.cacheRatio', defaultMessage: 'Cache ratio', description: 'Detail: price ratio of cache reads' },
  cacheCreationTokens: {
    id: 'logs.details.cacheCreationTokens',
    defaultMessage: 'Cache-creation tokens',
    description: 'Detail: prompt tokens written to the cache',
  },
  cacheCreationRatio: {
    id: 'logs.details.cacheCreationRatio',
    defaultMessage: 'Cache-creation ratio',
    description: 'Detail: price ratio of cache writes',
  },
  billing: { id: 'logs.details.billing', defaultMessage: 'Billing process', description: 'Detail: how the quota was computed' },
  billingRatioHint: {
    id: 'logs.details.billingRatioHint',
    defaultMessage: '(prompt + cache tokens × ratios + completion × completion ratio) × model ratio × group ratio = quota',
    description: 'Legend of the token billing formula',
  },
  billingFixedHint: {
    id: 'logs.details.billingFixedHint',
    defaultMessage: 'price per call × group ratio = cost',
    description: 'Legend of the per-call billing formula',
  },
  reasoningEffort: {
    id: 'logs.details.reasoningEffort',
    defaultMessage: 'Reasoning effort',
    description: 'Detail: reasoning effort asked for',
  },
  audioInput: { id: 'logs.details.audioInput', defaultMessage: 'Audio input tokens', description: 'Detail: audio input' },
  audioOutput: { id: 'logs.details.audioOutput', defaultMessage: 'Audio output tokens', description: 'Detail: audio output' },
  textInput: { id: 'logs.details.textInput', defaultMessage: 'Text input tokens', description: 'Detail: text input' },
  textOutput: { id: 'logs.details.textOutput', defaultMessage: 'Text output tokens', description: 'Detail: text output' },
  systemPrompt: { id: 'logs.details.systemPrompt', defaultMessage: 'System prompt', description: 'Detail: system prompt' },
  context: { id: 'logs.details.context', defaultMessage: 'Context', description: 'Detail: conversation context' },
  inputContent: { id: 'logs.details.inputContent', defaultMessage: 'Input content', description: 'Detail: input content' },
  outputContent: { id: 'logs.details.outputContent', defaultMessage: 'Output content', description: 'Detail: output content' },
  localCount: {
    id: 'logs.details.localCount',
    defaultMessage: 'Token counts',
    description: 'Detail: the counts were estimated by the gateway',
  },
  localCountValue: {
    id: 'logs.details.localCountValue',
    defaultMessage: 'Counted by the gateway (the upstream reported no usage)',
    description: 'Detail value: counts estimated locally',
  },
  clientGone: {
    id: 'logs.details.clientGone',
    defaultMessage: 'Client',
    description: 'Detail: the client went away',
  },
  clientGoneValue: {
    id: 'logs.details.clientGoneValue',
    defaultMessage: 'Disconnected before the answer ended',
    description: 'Detail value: client disconnected',
  },
  errorCode: { id: 'logs.details.errorCode', defaultMessage: 'Error code', description: 'Detail: gateway error code' },
  more: { id: 'logs.details.more', defaultMessage: 'more', description: 'Expand a long text' },
});

export const columnDialog = defineMessages({
  title: { id: 'logs.columnDialog.title', defaultMessage: 'Column settings', description: 'Column settings dialog title' },
  selectAll: { id: 'logs.columnDialog.selectAll', defaultMessage: 'Select all', description: 'Check every column' },
  reset: { id: 'logs.columnDialog.reset', defaultMessage: 'Reset', description: 'Back to the default columns' },
});

export const userInfo = defineMessages({
  title: { id: 'logs.userInfo.title', defaultMessage: 'User information', description: 'User info dialog title' },
  open: { id: 'logs.userInfo.open', defaultMessage: 'Show user information', description: 'Avatar button label' },
  username: { id: 'logs.userInfo.username', defaultMessage: 'User name', description: 'User info: name' },
  balance: { id: 'logs.userInfo.balance', defaultMessage: 'Balance', description: 'User info: remaining quota' },
  used: { id: 'logs.userInfo.used', defaultMessage: 'Used quota', description: 'User info: used quota' },
  requests: { id: 'logs.userInfo.requests', defaultMessage: 'Requests', description: 'User info: request count' },
});
