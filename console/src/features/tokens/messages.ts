import { defineMessages } from '../../i18n/define';

export const tokens = defineMessages({
  title: { id: 'tokens.title', defaultMessage: 'API tokens', description: 'Tokens page title' },
  warning: {
    id: 'tokens.warning',
    defaultMessage:
      'Token quotas only limit the maximum a token can use and cannot be controlled precisely; the actual usage is charged to your account balance. Tokens are for your own use only: do not share them with others.',
    description: 'Warning at the top of the tokens page',
  },
  keyword: { id: 'tokens.search.keyword', defaultMessage: 'Search by token name', description: 'Keyword search placeholder' },
  add: { id: 'tokens.add', defaultMessage: 'Add token', description: 'Add token button' },
  copySelected: { id: 'tokens.copySelected', defaultMessage: 'Copy selected', description: 'Copy selected tokens button' },
  created: { id: 'tokens.created', defaultMessage: 'Token created', description: 'Create success toast' },
  createdMany: {
    id: 'tokens.createdMany',
    defaultMessage: '{count, plural, one {# token created} other {# tokens created}}',
    description: 'Batch create success toast',
  },
  updated: { id: 'tokens.updated', defaultMessage: 'Token updated', description: 'Update success toast' },
  deleted: { id: 'tokens.deleted', defaultMessage: 'Token deleted', description: 'Delete success toast' },
  keyCopied: { id: 'tokens.keyCopied', defaultMessage: 'Key copied to clipboard', description: 'Key copy toast' },
});

export const columns = defineMessages({
  name: { id: 'tokens.columns.name', defaultMessage: 'Name', description: 'Column: name' },
  status: { id: 'tokens.columns.status', defaultMessage: 'Status', description: 'Column: status' },
  used: { id: 'tokens.columns.used', defaultMessage: 'Used', description: 'Column: used quota' },
  remain: { id: 'tokens.columns.remain', defaultMessage: 'Remaining', description: 'Column: remaining quota' },
  group: { id: 'tokens.columns.group', defaultMessage: 'Group', description: 'Column: group' },
  key: { id: 'tokens.columns.key', defaultMessage: 'Key', description: 'Column: key' },
  created: { id: 'tokens.columns.created', defaultMessage: 'Created', description: 'Column: created time' },
  expires: { id: 'tokens.columns.expires', defaultMessage: 'Expires', description: 'Column: expiry time' },
  actions: { id: 'tokens.columns.actions', defaultMessage: 'Actions', description: 'Column: actions' },
  unlimited: { id: 'tokens.columns.unlimited', defaultMessage: 'Unlimited', description: 'Unlimited quota tag' },
  never: { id: 'tokens.columns.never', defaultMessage: 'Never', description: 'Token never expires' },
  userGroup: {
    id: 'tokens.columns.userGroup',
    defaultMessage: 'User group',
    description: 'Token without a group uses the user group',
  },
  modelLimited: {
    id: 'tokens.columns.modelLimited',
    defaultMessage: 'Model limits',
    description: 'Tag: the token is limited to some models',
  },
  showKey: { id: 'tokens.columns.showKey', defaultMessage: 'Show key', description: 'Reveal the key' },
  hideKey: { id: 'tokens.columns.hideKey', defaultMessage: 'Hide key', description: 'Mask the key' },
  copyKey: { id: 'tokens.columns.copyKey', defaultMessage: 'Copy key', description: 'Copy the key' },
});

export const statuses = defineMessages({
  enabled: { id: 'tokens.status.enabled', defaultMessage: 'Enabled', description: 'Token status 1' },
  disabled: { id: 'tokens.status.disabled', defaultMessage: 'Disabled', description: 'Token status 2' },
  expired: { id: 'tokens.status.expired', defaultMessage: 'Expired', description: 'Token status 3' },
  exhausted: { id: 'tokens.status.exhausted', defaultMessage: 'Exhausted', description: 'Token status 4' },
  unknown: { id: 'tokens.status.unknown', defaultMessage: 'Unknown status', description: 'Any other token status' },
});

export const actions = defineMessages({
  enable: { id: 'tokens.actions.enable', defaultMessage: 'Enable', description: 'Enable a token' },
  disable: { id: 'tokens.actions.disable', defaultMessage: 'Disable', description: 'Disable a token' },
  edit: { id: 'tokens.actions.edit', defaultMessage: 'Edit', description: 'Edit a token' },
  delete: { id: 'tokens.actions.delete', defaultMessage: 'Delete', description: 'Delete a token' },
  deleteConfirm: {
    id: 'tokens.actions.deleteConfirm',
    defaultMessage: 'Delete the token {name}? This cannot be undone.',
    description: 'Delete confirmation',
  },
});

export const form = defineMessages({
  addTitle: { id: 'tokens.form.addTitle', defaultMessage: 'Create token', description: 'Create drawer title' },
  editTitle: { id: 'tokens.form.editTitle', defaultMessage: 'Edit token', description: 'Edit drawer title' },
  name: { id: 'tokens.form.name', defaultMessage: 'Name', description: 'Field: name' },
  namePlaceholder: {
    id: 'tokens.form.namePlaceholder',
    defaultMessage: 'Enter a name',
    description: 'Name placeholder',
  },
  group: { id: 'tokens.form.group', defaultMessage: 'Group', description: 'Field: group' },
  groupPlaceholder: {
    id: 'tokens.form.groupPlaceholder',
    defaultMessage: 'Your user group (default)',
    description: 'Group placeholder: empty uses the user group',
  },
  noGroups: {
    id: 'tokens.form.noGroups',
    defaultMessage: 'The administrator has not set any user-selectable groups',
    description: 'Group selector when there are no usable groups',
  },
  groupRatio: { id: 'tokens.form.groupRatio', defaultMessage: 'ratio {ratio}', description: 'Group option ratio' },
  expiry: { id: 'tokens.form.expiry', defaultMessage: 'Expiry time', description: 'Field: expiry time' },
  expiryPlaceholder: {
    id: 'tokens.form.expiryPlaceholder',
    defaultMessage: 'Never expires; or YYYY-MM-DD HH:mm:ss',
    description: 'Expiry placeholder',
  },
  never: { id: 'tokens.form.preset.never', defaultMessage: 'Never', description: 'Expiry preset: never' },
  hour: { id: 'tokens.form.preset.hour', defaultMessage: '1 hour', description: 'Expiry preset: one hour' },
  day: { id: 'tokens.form.preset.day', defaultMessage: '1 day', description: 'Expiry preset: one day' },
  month: { id: 'tokens.form.preset.month', defaultMessage: '1 month', description: 'Expiry preset: 30 days' },
  quota: { id: 'tokens.form.quota', defaultMessage: 'Quota', description: 'Field: quota' },
  unlimited: { id: 'tokens.form.unlimited', defaultMessage: 'Unlimited quota', description: 'Switch: unlimited quota' },
  count: { id: 'tokens.form.count', defaultMessage: 'How many to create', description: 'Field: batch count' },
  countHint: {
    id: 'tokens.form.countHint',
    defaultMessage: 'Extra tokens are named after the first one with a random suffix',
    description: 'Batch count hint',
  },
  modelLimits: { id: 'tokens.form.modelLimits', defaultMessage: 'Model limits', description: 'Switch: model limits' },
  modelLimitsPlaceholder: {
    id: 'tokens.form.modelLimitsPlaceholder',
    defaultMessage: 'Models this token may use',
    description: 'Model limits placeholder',
  },
  allowIps: { id: 'tokens.form.allowIps', defaultMessage: 'Allowed IPs', description: 'Field: allowed IPs' },
  allowIpsPlaceholder: {
    id: 'tokens.form.allowIpsPlaceholder',
    defaultMessage: 'One IP or CIDR per line; empty allows any IP',
    description: 'Allowed IPs placeholder',
  },
  rateLimit: { id: 'tokens.form.rateLimit', defaultMessage: 'Rate limit', description: 'Switch: rate limit' },
  ratePeriod: { id: 'tokens.form.ratePeriod', defaultMessage: 'Window (seconds)', description: 'Rate limit window' },
  rateCount: { id: 'tokens.form.rateCount', defaultMessage: 'Requests per window', description: 'Rate limit total' },
  rateSuccess: {
    id: 'tokens.form.rateSuccess',
    defaultMessage: 'Successful requests per window',
    description: 'Rate limit successes',
  },
});

export const validation = defineMessages({
  nameRequired: { id: 'tokens.validation.nameRequired', defaultMessage: 'Please enter a name', description: 'Name required' },
  nameTooLong: {
    id: 'tokens.validation.nameTooLong',
    defaultMessage: 'The name can have at most {max} characters',
    description: 'Name too long (less room when several tokens get a suffix)',
  },
  expiryFormat: {
    id: 'tokens.validation.expiryFormat',
    defaultMessage: 'Expiry time format error',
    description: 'Expiry does not parse as a date',
  },
  countInvalid: {
    id: 'tokens.validation.countInvalid',
    defaultMessage: 'The number of tokens must be a whole number from 1 to {max}',
    description: 'Batch count not a positive integer',
  },
  quotaInvalid: {
    id: 'tokens.validation.quotaInvalid',
    defaultMessage: 'The quota must be a whole number of at least 0',
    description: 'Quota not an integer',
  },
  selectFirst: {
    id: 'tokens.validation.selectFirst',
    defaultMessage: 'Please select at least one token',
    description: 'Copy selected with nothing selected',
  },
});
