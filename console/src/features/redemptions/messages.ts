import { defineMessages } from '../../i18n/define';

export const redemptions = defineMessages({
  title: { id: 'redemptions.title', defaultMessage: 'Redemption codes', description: 'Redemption page title' },
  keyword: {
    id: 'redemptions.search.keyword',
    defaultMessage: 'Search by ID or name',
    description: 'Keyword search placeholder',
  },
  add: { id: 'redemptions.add', defaultMessage: 'Add codes', description: 'Add codes button' },
  batchDisable: {
    id: 'redemptions.batchDisable',
    defaultMessage: 'Disable selected',
    description: 'Batch disable button',
  },
  batchDisabled: {
    id: 'redemptions.batchDisabled',
    defaultMessage: '{count, plural, one {# code disabled} other {# codes disabled}}',
    description: 'Batch disable result',
  },
  deleteDisabled: {
    id: 'redemptions.deleteDisabled',
    defaultMessage: 'Delete invalid codes',
    description: 'Delete disabled, used or expired codes',
  },
  deleteDisabledConfirm: {
    id: 'redemptions.deleteDisabledConfirm',
    defaultMessage: 'Delete every disabled, used or expired code?',
    description: 'Delete disabled confirmation',
  },
  deletedCount: {
    id: 'redemptions.deletedCount',
    defaultMessage: '{count, plural, one {# code deleted} other {# codes deleted}}',
    description: 'Delete result',
  },
  deleteByName: { id: 'redemptions.deleteByName', defaultMessage: 'Delete by name', description: 'Delete by name button' },
  created: { id: 'redemptions.created', defaultMessage: 'Codes created', description: 'Create success toast' },
  updated: { id: 'redemptions.updated', defaultMessage: 'Code updated', description: 'Update success toast' },
  deleted: { id: 'redemptions.deleted', defaultMessage: 'Code deleted', description: 'Delete success toast' },
});

export const columns = defineMessages({
  id: { id: 'redemptions.columns.id', defaultMessage: 'ID', description: 'Column: id' },
  name: { id: 'redemptions.columns.name', defaultMessage: 'Name', description: 'Column: name' },
  status: { id: 'redemptions.columns.status', defaultMessage: 'Status', description: 'Column: status' },
  quota: { id: 'redemptions.columns.quota', defaultMessage: 'Quota', description: 'Column: quota' },
  uses: { id: 'redemptions.columns.uses', defaultMessage: 'Uses', description: 'Column: used / max uses' },
  created: { id: 'redemptions.columns.created', defaultMessage: 'Created', description: 'Column: created time' },
  redeemedBy: { id: 'redemptions.columns.redeemedBy', defaultMessage: 'Redeemed by', description: 'Column: user id' },
  validity: { id: 'redemptions.columns.validity', defaultMessage: 'Valid', description: 'Column: validity window' },
  actions: { id: 'redemptions.columns.actions', defaultMessage: 'Actions', description: 'Column: actions' },
  gift: { id: 'redemptions.columns.gift', defaultMessage: 'Gift', description: 'Tag: gift code' },
  unlimited: { id: 'redemptions.columns.unlimited', defaultMessage: 'unlimited', description: 'Unlimited uses' },
  always: { id: 'redemptions.columns.always', defaultMessage: 'Always', description: 'No validity window' },
  from: { id: 'redemptions.columns.from', defaultMessage: 'from {time}', description: 'Valid from' },
  until: { id: 'redemptions.columns.until', defaultMessage: 'until {time}', description: 'Valid until' },
  nobody: { id: 'redemptions.columns.nobody', defaultMessage: 'Nobody', description: 'Not redeemed yet' },
  userId: { id: 'redemptions.columns.userId', defaultMessage: 'User {id}', description: 'Redeemed by user id' },
});

export const statuses = defineMessages({
  unused: { id: 'redemptions.status.unused', defaultMessage: 'Unused', description: 'Status 1' },
  disabled: { id: 'redemptions.status.disabled', defaultMessage: 'Disabled', description: 'Status 2' },
  used: { id: 'redemptions.status.used', defaultMessage: 'Used', description: 'Status 3' },
  unknown: { id: 'redemptions.status.unknown', defaultMessage: 'Unknown status', description: 'Other status' },
});

export const actions = defineMessages({
  copy: { id: 'redemptions.actions.copy', defaultMessage: 'Copy', description: 'Copy a code' },
  enable: { id: 'redemptions.actions.enable', defaultMessage: 'Enable', description: 'Enable a code' },
  disable: { id: 'redemptions.actions.disable', defaultMessage: 'Disable', description: 'Disable a code' },
  edit: { id: 'redemptions.actions.edit', defaultMessage: 'Edit', description: 'Edit a code' },
  delete: { id: 'redemptions.actions.delete', defaultMessage: 'Delete', description: 'Delete a code' },
  deleteConfirm: {
    id: 'redemptions.actions.deleteConfirm',
    defaultMessage: 'Delete the code {name}?',
    description: 'Delete confirmation',
  },
});

export const form = defineMessages({
  addTitle: { id: 'redemptions.form.addTitle', defaultMessage: 'Create redemption codes', description: 'Create title' },
  editTitle: { id: 'redemptions.form.editTitle', defaultMessage: 'Edit redemption code', description: 'Edit title' },
  name: { id: 'redemptions.form.name', defaultMessage: 'Name', description: 'Field: name' },
  namePlaceholder: {
    id: 'redemptions.form.namePlaceholder',
    defaultMessage: 'Empty: the quota amount',
    description: 'Name placeholder: defaults to the formatted quota',
  },
  quota: { id: 'redemptions.form.quota', defaultMessage: 'Quota', description: 'Field: quota' },
  count: { id: 'redemptions.form.count', defaultMessage: 'How many codes', description: 'Field: count' },
  key: { id: 'redemptions.form.key', defaultMessage: 'Custom code', description: 'Field: custom key' },
  keyPlaceholder: {
    id: 'redemptions.form.keyPlaceholder',
    defaultMessage: 'Optional; only when creating one code',
    description: 'Custom key placeholder',
  },
  gift: { id: 'redemptions.form.gift', defaultMessage: 'Gift code', description: 'Switch: gift code' },
  giftHint: {
    id: 'redemptions.form.giftHint',
    defaultMessage: 'A gift code can be redeemed by several users, once each',
    description: 'Gift code hint',
  },
  maxUses: { id: 'redemptions.form.maxUses', defaultMessage: 'Max uses', description: 'Field: max uses' },
  maxUsesPlaceholder: {
    id: 'redemptions.form.maxUsesPlaceholder',
    defaultMessage: 'Empty or -1: unlimited',
    description: 'Max uses placeholder',
  },
  validFrom: { id: 'redemptions.form.validFrom', defaultMessage: 'Effective time', description: 'Field: valid from' },
  validUntil: { id: 'redemptions.form.validUntil', defaultMessage: 'Expiry time', description: 'Field: valid until' },
});

export const created = defineMessages({
  title: { id: 'redemptions.createdCodes.title', defaultMessage: 'Codes created', description: 'Created codes dialog' },
  intro: {
    id: 'redemptions.createdCodes.intro',
    defaultMessage: '{count, plural, one {# code was} other {# codes were}} created. Copy or download them now.',
    description: 'Created codes dialog text',
  },
  copyAll: { id: 'redemptions.createdCodes.copyAll', defaultMessage: 'Copy all', description: 'Copy all codes' },
  download: { id: 'redemptions.createdCodes.download', defaultMessage: 'Download as text', description: 'Download codes' },
});

export const byName = defineMessages({
  title: { id: 'redemptions.byName.title', defaultMessage: 'Delete codes by name', description: 'Delete by name dialog' },
  name: { id: 'redemptions.byName.name', defaultMessage: 'Code name', description: 'Name field' },
  count: { id: 'redemptions.byName.count', defaultMessage: 'Count', description: 'Count button' },
  counted: {
    id: 'redemptions.byName.counted',
    defaultMessage: '{count, plural, one {# code is} other {# codes are}} named "{name}".',
    description: 'Count result',
  },
  delete: { id: 'redemptions.byName.delete', defaultMessage: 'Delete them', description: 'Delete button' },
});

export const validation = defineMessages({
  window: {
    id: 'redemptions.validation.window',
    defaultMessage: 'The effective time must be earlier than the expiry time',
    description: 'valid_from not before valid_until',
  },
  count: {
    id: 'redemptions.validation.count',
    defaultMessage: 'The number of codes must be a whole number from 1 to {max}',
    description: 'Bad count',
  },
  quota: {
    id: 'redemptions.validation.quota',
    defaultMessage: 'The quota must be a whole number greater than 0',
    description: 'Bad quota',
  },
  selectFirst: {
    id: 'redemptions.validation.selectFirst',
    defaultMessage: 'Please select at least one code',
    description: 'Batch disable with nothing selected',
  },
  nameRequired: {
    id: 'redemptions.validation.nameRequired',
    defaultMessage: 'Please enter a name',
    description: 'Delete by name without a name',
  },
});
