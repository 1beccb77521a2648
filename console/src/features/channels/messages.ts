/** Messages of the channel management screen (spec 2 §2.4, §4, §5.4, §8); Chinese in zh-CN.json. */
import { defineMessages } from '../../i18n/define';

export const page = defineMessages({
  title: { id: 'channels.title', defaultMessage: 'Manage channels', description: 'Channels page title' },
  add: { id: 'channels.add', defaultMessage: 'Add channel', description: 'Add channel button' },
  keyword: {
    id: 'channels.search.keyword',
    defaultMessage: 'ID, name, base URL or tag',
    description: 'Channel keyword search placeholder',
  },
  model: { id: 'channels.search.model', defaultMessage: 'Model', description: 'Channel model filter placeholder' },
  group: { id: 'channels.search.group', defaultMessage: 'Group', description: 'Channel group filter placeholder' },
  reset: { id: 'channels.search.reset', defaultMessage: 'Reset', description: 'Clear the channel filters' },
  idSort: { id: 'channels.idSort', defaultMessage: 'Sort by ID', description: 'Switch: newest first instead of priority' },
  tagMode: { id: 'channels.tagMode', defaultMessage: 'Group by tag', description: 'Switch: tag grouping of the table' },
  columnSettings: { id: 'channels.columnSettings', defaultMessage: 'Columns', description: 'Column settings button' },
  refresh: { id: 'channels.refresh', defaultMessage: 'Refresh', description: 'Reload the channel list' },
});

export const columns = defineMessages({
  id: { id: 'channels.columns.id', defaultMessage: 'ID', description: 'Column: id' },
  name: { id: 'channels.columns.name', defaultMessage: 'Name', description: 'Column: name' },
  group: { id: 'channels.columns.group', defaultMessage: 'Groups', description: 'Column: groups' },
  type: { id: 'channels.columns.type', defaultMessage: 'Type', description: 'Column: type' },
  status: { id: 'channels.columns.status', defaultMessage: 'Status', description: 'Column: status' },
  responseTime: { id: 'channels.columns.responseTime', defaultMessage: 'Response time', description: 'Column: latency' },
  balance: { id: 'channels.columns.balance', defaultMessage: 'Used / balance', description: 'Column: used quota and balance' },
  priority: { id: 'channels.columns.priority', defaultMessage: 'Priority', description: 'Column: priority' },
  weight: { id: 'channels.columns.weight', defaultMessage: 'Weight', description: 'Column: weight' },
  tag: { id: 'channels.columns.tag', defaultMessage: 'Tag', description: 'Column: tag' },
  models: { id: 'channels.columns.models', defaultMessage: 'Models', description: 'Column: models' },
  actions: { id: 'channels.columns.actions', defaultMessage: 'Actions', description: 'Column: actions' },
});

export const statuses = defineMessages({
  enabled: { id: 'channels.status.enabled', defaultMessage: 'Enabled', description: 'Status 1' },
  disabled: { id: 'channels.status.disabled', defaultMessage: 'Disabled', description: 'Status 2' },
  autoDisabled: { id: 'channels.status.autoDisabled', defaultMessage: 'Auto-disabled', description: 'Status 3' },
  unknown: { id: 'channels.status.unknown', defaultMessage: 'Unknown', description: 'Any other status' },
  reason: { id: 'channels.status.reason', defaultMessage: 'Reason: {reason}', description: 'Auto-disable tooltip: reason' },
  time: { id: 'channels.status.time', defaultMessage: 'Disabled at: {time}', description: 'Auto-disable tooltip: time' },
  noReason: {
    id: 'channels.status.noReason',
    defaultMessage: 'Disabled automatically; no reason was recorded',
    description: 'Auto-disable tooltip without other_info',
  },
  tagMixed: {
    id: 'channels.status.tagMixed',
    defaultMessage: '{enabled} of {total} enabled',
    description: 'Tag row status: how many members are enabled',
  },
});

export const cells = defineMessages({
  untested: { id: 'channels.cells.untested', defaultMessage: 'Not tested', description: 'Response time 0' },
  seconds: { id: 'channels.cells.seconds', defaultMessage: '{seconds} s', description: 'A response time in seconds' },
  testedAt: { id: 'channels.cells.testedAt', defaultMessage: 'Tested at {time}', description: 'Response time tooltip' },
  used: { id: 'channels.cells.used', defaultMessage: 'Used {amount}', description: 'Used quota of a channel' },
  balance: { id: 'channels.cells.balance', defaultMessage: 'Balance ${amount}', description: 'Upstream balance in USD' },
  balanceHint: {
    id: 'channels.cells.balanceHint',
    defaultMessage: 'Click to update the balance (last update: {time})',
    description: 'Balance tooltip',
  },
  never: { id: 'channels.cells.never', defaultMessage: 'never', description: 'No update time yet' },
  balanceUpdated: {
    id: 'channels.cells.balanceUpdated',
    defaultMessage: 'Balance of {name} updated: ${amount}',
    description: 'Balance update toast',
  },
  saved: { id: 'channels.cells.saved', defaultMessage: 'Saved', description: 'Inline edit saved' },
  tagChannels: { id: 'channels.cells.tagChannels', defaultMessage: '{count} channels', description: 'Members of a tag row' },
  more: { id: 'channels.cells.more', defaultMessage: '+{count}', description: 'More models than shown' },
  notServed: {
    id: 'channels.cells.notServed',
    defaultMessage: 'Not served by this gateway version',
    description: 'Warning tag beside the type of a channel the gateway has no adapter for',
  },
  keys: { id: 'channels.cells.keys', defaultMessage: '{total} keys', description: 'Key tag of a multi-key channel' },
  keysDisabled: {
    id: 'channels.cells.keysDisabled',
    defaultMessage: '{total} keys · {disabled} disabled',
    description: 'Key tag of a multi-key channel with disabled keys (by hand or automatically)',
  },
  keysHint: {
    id: 'channels.cells.keysHint',
    defaultMessage: '{enabled} of {total} keys enabled; click to manage them',
    description: 'Tooltip of the key tag',
  },
  notServedHint: {
    id: 'channels.cells.notServedHint',
    defaultMessage:
      'This gateway version cannot relay this channel type: requests are never routed to this channel, whatever its status.',
    description: 'Tooltip of the not-served tag',
  },
});

export const actions = defineMessages({
  test: { id: 'channels.actions.test', defaultMessage: 'Test', description: 'Test the channel with its default model' },
  testModels: {
    id: 'channels.actions.testModels',
    defaultMessage: 'Choose a model to test',
    description: 'Open the model test dialog',
  },
  keys: { id: 'channels.actions.keys', defaultMessage: 'Keys', description: 'Open the keys dialog of a multi-key channel' },
  enable: { id: 'channels.actions.enable', defaultMessage: 'Enable', description: 'Enable a channel' },
  disable: { id: 'channels.actions.disable', defaultMessage: 'Disable', description: 'Disable a channel' },
  delete: { id: 'channels.actions.delete', defaultMessage: 'Delete', description: 'Delete a channel' },
  deleteConfirm: { id: 'channels.actions.deleteConfirm', defaultMessage: 'Delete channel {name}?', description: 'Confirm' },
  deleted: { id: 'channels.actions.deleted', defaultMessage: 'Channel deleted', description: 'Delete toast' },
  copy: { id: 'channels.actions.copy', defaultMessage: 'Copy', description: 'Copy a channel' },
  copyConfirm: {
    id: 'channels.actions.copyConfirm',
    defaultMessage: 'Copy channel {name} with its keys and settings?',
    description: 'Confirm before copying a channel',
  },
  copied: { id: 'channels.actions.copied', defaultMessage: 'Channel copied as {name}', description: 'Copy toast' },
  copyFailed: {
    id: 'channels.actions.copyFailed',
    defaultMessage: 'Channel copy failed: {message}',
    description: 'Copy failure toast (spec 2 §8)',
  },
  testOk: {
    id: 'channels.actions.testOk',
    defaultMessage: 'Channel {name} works with {model}: {seconds} s',
    description: 'Test success toast',
  },
  enableAll: { id: 'channels.actions.enableAll', defaultMessage: 'Enable all', description: 'Tag row: enable every member' },
  disableAll: {
    id: 'channels.actions.disableAll',
    defaultMessage: 'Disable all',
    description: 'Tag row: disable every member',
  },
  editTag: { id: 'channels.actions.editTag', defaultMessage: 'Edit tag', description: 'Tag row: open the tag dialog' },
  tagStatusDone: {
    id: 'channels.actions.tagStatusDone',
    defaultMessage: '{count} channels with tag {tag} updated',
    description: 'Tag enable/disable toast',
  },
});

export const bulk = defineMessages({
  testAll: { id: 'channels.bulk.testAll', defaultMessage: 'Test all', description: 'Test every channel' },
  updateBalances: {
    id: 'channels.bulk.updateBalances',
    defaultMessage: 'Update all balances',
    description: 'Refresh every balance',
  },
  deleteDisabled: {
    id: 'channels.bulk.deleteDisabled',
    defaultMessage: 'Delete disabled',
    description: 'Delete disabled channels',
  },
  fixAbilities: { id: 'channels.bulk.fixAbilities', defaultMessage: 'Fix abilities', description: 'Rebuild abilities' },
  batchDelete: { id: 'channels.bulk.batchDelete', defaultMessage: 'Delete selected', description: 'Batch delete' },
  batchTag: { id: 'channels.bulk.batchTag', defaultMessage: 'Set tag', description: 'Batch set tag' },
  selected: { id: 'channels.bulk.selected', defaultMessage: '{count} selected', description: 'Selection count' },
  runningTestAll: {
    id: 'channels.bulk.running.testAll',
    defaultMessage: 'Testing every channel that is not disabled by hand…',
    description: 'Progress of test all',
  },
  runningBalances: {
    id: 'channels.bulk.running.balances',
    defaultMessage: 'Updating the balances of enabled channels…',
    description: 'Progress of update all balances',
  },
  runningDeleteDisabled: {
    id: 'channels.bulk.running.deleteDisabled',
    defaultMessage: 'Deleting disabled channels…',
    description: 'Progress of delete disabled',
  },
  runningFix: { id: 'channels.bulk.running.fix', defaultMessage: 'Rebuilding abilities…', description: 'Progress of fix' },
  runningBatchDelete: {
    id: 'channels.bulk.running.batchDelete',
    defaultMessage: 'Deleting {count} channels…',
    description: 'Progress of batch delete',
  },
  testAllDone: {
    id: 'channels.bulk.testAllDone',
    defaultMessage:
      'Tested {checked} channels: {succeeded} succeeded, {failed} failed, {disabled} disabled, {enabled} enabled again',
    description: 'Test all result',
  },
  balancesDone: {
    id: 'channels.bulk.balancesDone',
    defaultMessage: 'Checked {checked} channels: {succeeded} balances updated, {failed} failed, {disabled} disabled',
    description: 'Update all balances result',
  },
  deletedDisabled: {
    id: 'channels.bulk.deletedDisabled',
    defaultMessage: 'Deleted {count} disabled channels',
    description: 'Delete disabled result',
  },
  fixed: {
    id: 'channels.bulk.fixed',
    defaultMessage: 'Rebuilt the abilities of {count} channels',
    description: 'Fix abilities result',
  },
  batchDeleted: { id: 'channels.bulk.batchDeleted', defaultMessage: 'Deleted {count} channels', description: 'Result' },
  deleteDisabledConfirm: {
    id: 'channels.bulk.deleteDisabledConfirm',
    defaultMessage: 'Delete every disabled channel (disabled by hand or automatically)?',
    description: 'Confirm',
  },
  fixConfirm: {
    id: 'channels.bulk.fixConfirm',
    defaultMessage: 'Rebuild the abilities table from the channels?',
    description: 'Confirm',
  },
  batchDeleteConfirm: {
    id: 'channels.bulk.batchDeleteConfirm',
    defaultMessage: 'Delete the {count} selected channels?',
    description: 'Confirm',
  },
});

/** Validation rules of spec 2 §5.4 and the error catalogue of §8. */
export const rules = defineMessages({
  nameKeyRequired: {
    id: 'channels.rules.nameKeyRequired',
    defaultMessage: 'Please fill in the channel name and key',
    description: 'Create without name or key',
  },
  modelsRequired: {
    id: 'channels.rules.modelsRequired',
    defaultMessage: 'Please select at least one model',
    description: 'No model',
  },
  modelMappingInvalid: {
    id: 'channels.rules.modelMappingInvalid',
    defaultMessage: 'Model mapping must be valid JSON',
    description: 'Bad model_mapping',
  },
  statusCodeMappingInvalid: {
    id: 'channels.rules.statusCodeMappingInvalid',
    defaultMessage: 'Status code mapping must be valid JSON',
    description: 'Bad status_code_mapping',
  },
  settingInvalid: {
    id: 'channels.rules.settingInvalid',
    defaultMessage: 'Channel extra settings must be valid JSON',
    description: 'Bad setting',
  },
  paramOverrideInvalid: {
    id: 'channels.rules.paramOverrideInvalid',
    defaultMessage: 'Parameter override must be valid JSON',
    description: 'Bad param_override',
  },
  headerOverrideInvalid: {
    id: 'channels.rules.headerOverrideInvalid',
    defaultMessage: 'Header override must be valid JSON',
    description: 'Bad header_override',
  },
  regionInvalid: {
    id: 'channels.rules.regionInvalid',
    defaultMessage: 'The region must be plain text or a JSON object',
    description: 'Bad Vertex region',
  },
  baseUrlV1Title: {
    id: 'channels.rules.baseUrlV1Title',
    defaultMessage: 'The base URL ends with /v1',
    description: 'Confirm title',
  },
  baseUrlV1Content: {
    id: 'channels.rules.baseUrlV1Content',
    defaultMessage:
      'The gateway appends the request path (such as /v1/chat/completions) itself, so a base URL ending in /v1 usually leads to /v1/v1. Save anyway?',
    description: 'Confirm text',
  },
  keyRequiredForDestination: {
    id: 'channels.rules.keyRequiredForDestination',
    defaultMessage: "The base URL, header override or proxy changed: enter the channel's key again to save",
    description: 'Edit that redirects the stored key without the key',
  },
  keyRequiredForFetch: {
    id: 'channels.rules.keyRequiredForFetch',
    defaultMessage: 'Enter a key first: a new channel needs one to fetch its models',
    description: 'Fetch models without key',
  },
  fetchedNotList: {
    id: 'channels.rules.fetchedNotList',
    defaultMessage: 'Submit failed, please do not resubmit',
    description: 'Fetched models not an array',
  },
  customDuplicates: {
    id: 'channels.rules.customDuplicates',
    defaultMessage: 'Already in the list, ignored: {models}',
    description: 'Custom model duplicates',
  },
  customAdded: { id: 'channels.rules.customAdded', defaultMessage: 'Added {count} models', description: 'Custom added' },
  priorityInvalid: {
    id: 'channels.rules.priorityInvalid',
    defaultMessage: 'Priority must be an integer of at least {min}',
    description: 'Bad priority',
  },
  weightInvalid: {
    id: 'channels.rules.weightInvalid',
    defaultMessage: 'Weight must be a non-negative integer',
    description: 'Bad weight',
  },
  tagPriorityInvalid: {
    id: 'channels.rules.tagPriorityInvalid',
    defaultMessage: 'Priority must be an integer',
    description: 'Tag edit: bad priority',
  },
  noChanges: { id: 'channels.rules.noChanges', defaultMessage: 'No changes', description: 'Tag edit without changes' },
  selectChannels: {
    id: 'channels.rules.selectChannels',
    defaultMessage: 'Please select channels first',
    description: 'Batch action without selection',
  },
  tagRequired: { id: 'channels.rules.tagRequired', defaultMessage: 'The tag cannot be empty', description: 'Batch tag' },
  checkInput: { id: 'channels.rules.checkInput', defaultMessage: 'Please check your input', description: 'Spec 2 §8' },
  channelNotFound: {
    id: 'channels.rules.channelNotFound',
    defaultMessage: 'Channel not found, please refresh',
    description: 'Spec 2 §8',
  },
  enabledModelsFailed: {
    id: 'channels.rules.enabledModelsFailed',
    defaultMessage: 'Failed to get enabled models',
    description: 'Spec 2 §8',
  },
  modelListFailed: {
    id: 'channels.rules.modelListFailed',
    defaultMessage: 'Failed to get model list',
    description: 'Spec 2 §8',
  },
});

export const form = defineMessages({
  addTitle: { id: 'channels.form.addTitle', defaultMessage: 'Add channel', description: 'Drawer title' },
  editTitle: { id: 'channels.form.editTitle', defaultMessage: 'Edit channel #{id}', description: 'Drawer title' },
  basics: { id: 'channels.form.basics', defaultMessage: 'Basics', description: 'Form section' },
  modelsSection: { id: 'channels.form.modelsSection', defaultMessage: 'Models and groups', description: 'Form section' },
  advanced: { id: 'channels.form.advanced', defaultMessage: 'Advanced settings', description: 'Form section' },
  type: { id: 'channels.form.type', defaultMessage: 'Type', description: 'Field' },
  name: { id: 'channels.form.name', defaultMessage: 'Name', description: 'Field' },
  namePlaceholder: {
    id: 'channels.form.namePlaceholder',
    defaultMessage: 'A name to recognise the channel',
    description: 'Placeholder',
  },
  baseUrl: { id: 'channels.form.baseUrl', defaultMessage: 'Base URL', description: 'Field' },
  baseUrlDefault: {
    id: 'channels.form.baseUrlDefault',
    defaultMessage: 'Optional; defaults to {url}',
    description: 'Placeholder with the type default',
  },
  baseUrlOptional: {
    id: 'channels.form.baseUrlOptional',
    defaultMessage: 'Optional upstream address',
    description: 'Placeholder',
  },
  baseUrlRequired: {
    id: 'channels.form.baseUrlRequired',
    defaultMessage: 'The upstream address, e.g. https://host.example',
    description: 'Placeholder',
  },
  fullUrl: { id: 'channels.form.fullUrl', defaultMessage: 'Full URL', description: 'Field (type 8)' },
  fullUrlPlaceholder: {
    id: 'channels.form.fullUrlPlaceholder',
    defaultMessage: 'e.g. https://host.example/v1/chat/completions ({model} is replaced by the model name)',
    description: 'Placeholder (type 8)',
  },
  key: { id: 'channels.form.key', defaultMessage: 'Key', description: 'Field' },
  keyPlaceholder: {
    id: 'channels.form.keyPlaceholder',
    defaultMessage: 'The upstream key; several keys one per line',
    description: 'Placeholder',
  },
  keyKeep: {
    id: 'channels.form.keyKeep',
    defaultMessage: 'Leave blank to keep the stored keys ({count})',
    description: 'Edit: blank keeps the keys',
  },
  keyReenter: {
    id: 'channels.form.keyReenter',
    defaultMessage: 'The base URL, header override or proxy changed: enter the key again',
    description: 'Edit: the key field is required once the key would go somewhere new',
  },
  organization: { id: 'channels.form.organization', defaultMessage: 'Organization', description: 'Field (type 1)' },
  organizationPlaceholder: {
    id: 'channels.form.organizationPlaceholder',
    defaultMessage: 'Optional OpenAI organization, e.g. org-xxx',
    description: 'Placeholder',
  },
  groups: { id: 'channels.form.groups', defaultMessage: 'Groups', description: 'Field' },
  models: { id: 'channels.form.models', defaultMessage: 'Models', description: 'Field' },
  modelsPlaceholder: {
    id: 'channels.form.modelsPlaceholder',
    defaultMessage: 'Models this channel serves',
    description: 'Placeholder',
  },
  fillRelated: { id: 'channels.form.fillRelated', defaultMessage: 'Fill related models', description: 'Button' },
  fillAll: { id: 'channels.form.fillAll', defaultMessage: 'Fill all models', description: 'Button' },
  fetchModels: { id: 'channels.form.fetchModels', defaultMessage: 'Fetch from upstream', description: 'Button' },
  clearModels: { id: 'channels.form.clearModels', defaultMessage: 'Clear', description: 'Button' },
  pickModels: { id: 'channels.form.pickModels', defaultMessage: 'Advanced picker', description: 'Button' },
  fetched: { id: 'channels.form.fetched', defaultMessage: 'Fetched {count} models', description: 'Toast' },
  customModels: { id: 'channels.form.customModels', defaultMessage: 'Custom models', description: 'Field' },
  customPlaceholder: {
    id: 'channels.form.customPlaceholder',
    defaultMessage: 'Model names separated by commas or spaces',
    description: 'Placeholder',
  },
  addCustom: { id: 'channels.form.addCustom', defaultMessage: 'Add', description: 'Button' },
  testModel: { id: 'channels.form.testModel', defaultMessage: 'Test model', description: 'Field' },
  testModelPlaceholder: {
    id: 'channels.form.testModelPlaceholder',
    defaultMessage: 'Model used by tests; empty means the first model',
    description: 'Placeholder',
  },
  modelMapping: { id: 'channels.form.modelMapping', defaultMessage: 'Model mapping', description: 'Field' },
  modelMappingHint: {
    id: 'channels.form.modelMappingHint',
    defaultMessage: 'JSON: requested model → upstream model, e.g. {example}',
    description: 'Help',
  },
  fillTemplate: { id: 'channels.form.fillTemplate', defaultMessage: 'Fill template', description: 'Button' },
  statusCodeMapping: {
    id: 'channels.form.statusCodeMapping',
    defaultMessage: 'Status code mapping',
    description: 'Field',
  },
  statusCodeMappingHint: {
    id: 'channels.form.statusCodeMappingHint',
    defaultMessage: 'JSON: upstream status → status returned to clients, e.g. {example}',
    description: 'Help',
  },
  setting: { id: 'channels.form.setting', defaultMessage: 'Extra settings', description: 'Field' },
  settingHint: {
    id: 'channels.form.settingHint',
    defaultMessage: 'JSON, e.g. {example}',
    description: 'Help',
  },
  paramOverride: { id: 'channels.form.paramOverride', defaultMessage: 'Parameter override', description: 'Field' },
  paramOverrideHint: {
    id: 'channels.form.paramOverrideHint',
    defaultMessage: 'JSON merged into the request body, e.g. {example}',
    description: 'Help',
  },
  headerOverride: { id: 'channels.form.headerOverride', defaultMessage: 'Header override', description: 'Field' },
  tag: { id: 'channels.form.tag', defaultMessage: 'Tag', description: 'Field' },
  tagPlaceholder: {
    id: 'channels.form.tagPlaceholder',
    defaultMessage: 'Channels with the same tag are grouped and edited together',
    description: 'Placeholder',
  },
  modelPrefix: { id: 'channels.form.modelPrefix', defaultMessage: 'Model prefix', description: 'Field' },
  priority: { id: 'channels.form.priority', defaultMessage: 'Priority', description: 'Field' },
  weight: { id: 'channels.form.weight', defaultMessage: 'Weight', description: 'Field' },
  autoBan: {
    id: 'channels.form.autoBan',
    defaultMessage: 'Disable automatically on failure',
    description: 'Field',
  },
  maxInputTokens: { id: 'channels.form.maxInputTokens', defaultMessage: 'Max input tokens', description: 'Field' },
  maxInputTokensHint: {
    id: 'channels.form.maxInputTokensHint',
    defaultMessage: '0 means no limit',
    description: 'Help',
  },
  remark: { id: 'channels.form.remark', defaultMessage: 'Remark', description: 'Field' },
  created: { id: 'channels.form.created', defaultMessage: 'Channel created', description: 'Toast' },
  createdMany: {
    id: 'channels.form.createdMany',
    defaultMessage: '{count} channels created',
    description: 'Toast (batch mode)',
  },
  updated: { id: 'channels.form.updated', defaultMessage: 'Channel updated', description: 'Toast' },
  multiKeyView: { id: 'channels.form.multiKeyView', defaultMessage: 'Multi-key view', description: 'Switch' },
  keysDetected: {
    id: 'channels.form.keysDetected',
    defaultMessage: '{count} keys detected',
    description: 'Multi-key count',
  },
  keysStored: {
    id: 'channels.form.keysStored',
    defaultMessage: 'This channel holds {count} keys',
    description: 'Multi-key count of a saved channel',
  },
  createMode: { id: 'channels.form.createMode', defaultMessage: 'Save the keys as', description: 'Field' },
  batchMode: { id: 'channels.form.batchMode', defaultMessage: 'One channel per key', description: 'Option' },
  multiToSingle: {
    id: 'channels.form.multiToSingle',
    defaultMessage: 'One channel with several keys',
    description: 'Option',
  },
  multiKeyMode: { id: 'channels.form.multiKeyMode', defaultMessage: 'Key selection', description: 'Field' },
  random: { id: 'channels.form.random', defaultMessage: 'Random', description: 'Option' },
  polling: { id: 'channels.form.polling', defaultMessage: 'Round robin', description: 'Option' },
});

/** What the free-text `other` field means for a type (spec 2 §4.2). */
export const otherFields = defineMessages({
  azureApiVersion: { id: 'channels.other.azureApiVersion', defaultMessage: 'API version', description: 'Type 3' },
  azureApiVersionHint: {
    id: 'channels.other.azureApiVersionHint',
    defaultMessage: 'Optional; defaults to {version}',
    description: 'Type 3',
  },
  aliPlugin: { id: 'channels.other.aliPlugin', defaultMessage: 'Plugin parameter', description: 'Type 17' },
  aliPluginHint: {
    id: 'channels.other.aliPluginHint',
    defaultMessage: 'Value of the X-DashScope-Plugin header, optional',
    description: 'Type 17',
  },
  xunfeiVersion: { id: 'channels.other.xunfeiVersion', defaultMessage: 'Model version', description: 'Type 18' },
  xunfeiVersionHint: {
    id: 'channels.other.xunfeiVersionHint',
    defaultMessage: 'The version in the Spark API address, e.g. {version} (used when empty)',
    description: 'Type 18',
  },
  knowledgeBaseId: { id: 'channels.other.knowledgeBaseId', defaultMessage: 'Knowledge base ID', description: 'Type 21' },
  knowledgeBaseIdHint: {
    id: 'channels.other.knowledgeBaseIdHint',
    defaultMessage: 'The knowledge base ID, e.g. 123456',
    description: 'Type 21',
  },
  cloudflareAccountId: {
    id: 'channels.other.cloudflareAccountId',
    defaultMessage: 'Account ID',
    description: 'Type 39',
  },
  cloudflareAccountIdHint: {
    id: 'channels.other.cloudflareAccountIdHint',
    defaultMessage: 'Your Cloudflare account ID, e.g. d6b5da8hk1awo8nap34ube6gh',
    description: 'Type 39',
  },
  vertexRegion: { id: 'channels.other.vertexRegion', defaultMessage: 'Region', description: 'Type 41' },
  vertexRegionHint: {
    id: 'channels.other.vertexRegionHint',
    defaultMessage: 'A region such as us-central1, or JSON per model: {example} (empty: {fallback})',
    description: 'Type 41',
  },
  cozeBotId: { id: 'channels.other.cozeBotId', defaultMessage: 'Bot ID', description: 'Type 49' },
  cozeBotIdHint: {
    id: 'channels.other.cozeBotIdHint',
    defaultMessage: 'The ID of the Coze bot to call',
    description: 'Type 49',
  },
});

/** Placeholders of the composite key formats. */
export const keyFormats = defineMessages({
  baidu: { id: 'channels.keyFormat.baidu', defaultMessage: 'Format: APIKey|SecretKey', description: 'Type 15' },
  zhipu: { id: 'channels.keyFormat.zhipu', defaultMessage: 'Format: APIKey.Secret (id.secret)', description: 'Type 16' },
  xunfei: {
    id: 'channels.keyFormat.xunfei',
    defaultMessage: 'Format: APPID|APISecret|APIKey',
    description: 'Type 18',
  },
  fastGpt: {
    id: 'channels.keyFormat.fastGpt',
    defaultMessage: 'Format: APIKey-AppId, e.g. fastgpt-0sp2gtvfdgyi4k30jwlgwf1i-64f335d84283f05518e9e041',
    description: 'Type 22',
  },
  tencent: {
    id: 'channels.keyFormat.tencent',
    defaultMessage: 'Format: AppId|SecretId|SecretKey',
    description: 'Type 23',
  },
  aws: {
    id: 'channels.keyFormat.aws',
    defaultMessage: 'Format: AccessKey|SecretAccessKey|Region, or APIKey|Region',
    description: 'Type 33',
  },
  vertexJson: {
    id: 'channels.keyFormat.vertexJson',
    defaultMessage: 'The service account JSON key file content',
    description: 'Type 41',
  },
  baiduV2: { id: 'channels.keyFormat.baiduV2', defaultMessage: 'Format: APIKey|AppId', description: 'Type 46' },
});

/** Notices shown above the form for some types. */
export const notices = defineMessages({
  azure: {
    id: 'channels.notice.azure',
    defaultMessage: 'Azure OpenAI: the base URL is your resource endpoint; the deployment names must equal the model names.',
    description: 'Type 3',
  },
  custom: {
    id: 'channels.notice.custom',
    defaultMessage: 'Custom channel: the base URL is the full request URL; {model} in it is replaced by the model name.',
    description: 'Type 8',
  },
  midjourney: {
    id: 'channels.notice.midjourney',
    defaultMessage: 'Midjourney Proxy: enter the address of your proxy deployment; the models are its mj_ actions.',
    description: 'Types 2, 5',
  },
  suno: {
    id: 'channels.notice.suno',
    defaultMessage: 'Suno API: enter the address of your Suno API deployment for music generation.',
    description: 'Type 36',
  },
  dify: {
    id: 'channels.notice.dify',
    defaultMessage: 'Dify: use the API key of a chat, completion or workflow app.',
    description: 'Type 37',
  },
  siliconFlow: {
    id: 'channels.notice.siliconFlow',
    defaultMessage: 'SiliconFlow: the key is an API key from the SiliconFlow console.',
    description: 'Type 40',
  },
  vertex: {
    id: 'channels.notice.vertex',
    defaultMessage: 'Vertex AI: paste the service account JSON as the key; it is never split into several keys.',
    description: 'Type 41',
  },
  volcEngine: {
    id: 'channels.notice.volcEngine',
    defaultMessage: 'VolcEngine Ark: choose the mainland China or the international (BytePlus) endpoint.',
    description: 'Type 45',
  },
});

export const tagDialog = defineMessages({
  title: { id: 'channels.tagDialog.title', defaultMessage: 'Edit tag {tag}', description: 'Dialog title' },
  hint: {
    id: 'channels.tagDialog.hint',
    defaultMessage: 'Only the fields you change are applied, to every channel with this tag.',
    description: 'Dialog help',
  },
  newTag: { id: 'channels.tagDialog.newTag', defaultMessage: 'New tag name', description: 'Field' },
  newTagPlaceholder: {
    id: 'channels.tagDialog.newTagPlaceholder',
    defaultMessage: 'Leave as is to keep the tag',
    description: 'Placeholder',
  },
  done: {
    id: 'channels.tagDialog.done',
    defaultMessage: 'Updated {count} channels',
    description: 'Toast',
  },
});

export const batchTagDialog = defineMessages({
  title: {
    id: 'channels.batchTag.title',
    defaultMessage: 'Set a tag for {count} channels',
    description: 'Dialog title',
  },
  placeholder: { id: 'channels.batchTag.placeholder', defaultMessage: 'Tag name', description: 'Placeholder' },
  done: { id: 'channels.batchTag.done', defaultMessage: 'Tag set for {count} channels', description: 'Toast' },
});

export const testDialog = defineMessages({
  title: { id: 'channels.testDialog.title', defaultMessage: 'Test models of {name}', description: 'Dialog title' },
  search: { id: 'channels.testDialog.search', defaultMessage: 'Search models', description: 'Placeholder' },
  model: { id: 'channels.testDialog.model', defaultMessage: 'Model', description: 'Column' },
  result: { id: 'channels.testDialog.result', defaultMessage: 'Result', description: 'Column' },
  ok: { id: 'channels.testDialog.ok', defaultMessage: 'OK in {seconds} s', description: 'Result' },
  failed: { id: 'channels.testDialog.failed', defaultMessage: 'Failed: {message}', description: 'Result' },
  notTested: { id: 'channels.testDialog.notTested', defaultMessage: 'Not tested', description: 'Result' },
  testing: { id: 'channels.testDialog.testing', defaultMessage: 'Testing…', description: 'Result' },
});

/** The Keys dialog of a multi-key channel. */
export const keysDialog = defineMessages({
  title: { id: 'channels.keysDialog.title', defaultMessage: 'Keys of {name}', description: 'Dialog title' },
  total: { id: 'channels.keysDialog.total', defaultMessage: 'Total', description: 'Summary: every key' },
  enabled: { id: 'channels.keysDialog.enabled', defaultMessage: 'Enabled', description: 'Summary, filter and key status 1' },
  manual: {
    id: 'channels.keysDialog.manual',
    defaultMessage: 'Disabled by hand',
    description: 'Summary, filter and key status 2',
  },
  auto: {
    id: 'channels.keysDialog.auto',
    defaultMessage: 'Disabled automatically',
    description: 'Summary, filter and key status 3',
  },
  all: { id: 'channels.keysDialog.all', defaultMessage: 'All', description: 'Filter: every key' },
  filter: { id: 'channels.keysDialog.filter', defaultMessage: 'Show keys', description: 'Label of the status filter' },
  index: { id: 'channels.keysDialog.index', defaultMessage: 'Index', description: 'Column: position of the key' },
  key: { id: 'channels.keysDialog.key', defaultMessage: 'Key', description: 'Column: key preview' },
  status: { id: 'channels.keysDialog.status', defaultMessage: 'Status', description: 'Column' },
  reason: { id: 'channels.keysDialog.reason', defaultMessage: 'Reason', description: 'Column: why the key is disabled' },
  disabledTime: { id: 'channels.keysDialog.disabledTime', defaultMessage: 'Disabled at', description: 'Column' },
  result: { id: 'channels.keysDialog.result', defaultMessage: 'Test result', description: 'Column' },
  actions: { id: 'channels.keysDialog.actions', defaultMessage: 'Actions', description: 'Column' },
  enableAll: { id: 'channels.keysDialog.enableAll', defaultMessage: 'Enable all keys', description: 'Toolbar button' },
  deleteDisabled: {
    id: 'channels.keysDialog.deleteDisabled',
    defaultMessage: 'Delete disabled keys',
    description: 'Toolbar button',
  },
  deleteDisabledConfirm: {
    id: 'channels.keysDialog.deleteDisabledConfirm',
    defaultMessage: 'Delete the {count} disabled keys from the channel?',
    description: 'Confirm title',
  },
  deleteDisabledHint: {
    id: 'channels.keysDialog.deleteDisabledHint',
    defaultMessage:
      'They are removed for good. The remaining keys are renumbered from #0 in their current order, so their indexes change.',
    description: 'Confirm description: what deleting does to the indexes',
  },
  keyEnabled: { id: 'channels.keysDialog.keyEnabled', defaultMessage: 'Key #{index} enabled', description: 'Toast' },
  keyDisabled: { id: 'channels.keysDialog.keyDisabled', defaultMessage: 'Key #{index} disabled', description: 'Toast' },
  enabledAll: {
    id: 'channels.keysDialog.enabledAll',
    defaultMessage: 'Every key of the channel is enabled',
    description: 'Toast',
  },
  deletedDisabled: {
    id: 'channels.keysDialog.deletedDisabled',
    defaultMessage: 'Disabled keys deleted: {total} keys left',
    description: 'Toast after deleting the disabled keys',
  },
  channelAutoDisabled: {
    id: 'channels.keysDialog.channelAutoDisabled',
    defaultMessage: 'The channel itself is disabled automatically; enabling one of its keys enables it again.',
    description: 'Notice when the channel status is 3',
  },
  channelDisabled: {
    id: 'channels.keysDialog.channelDisabled',
    defaultMessage: 'The channel itself is disabled by hand: none of its keys is used until the channel is enabled.',
    description: 'Notice when the channel status is 2',
  },
});

export const picker = defineMessages({
  title: { id: 'channels.picker.title', defaultMessage: 'Choose models', description: 'Dialog title' },
  search: { id: 'channels.picker.search', defaultMessage: 'Search models', description: 'Placeholder' },
  fromUpstream: {
    id: 'channels.picker.fromUpstream',
    defaultMessage: 'Models fetched from the upstream',
    description: 'Source',
  },
  fromEnabled: {
    id: 'channels.picker.fromEnabled',
    defaultMessage: 'Models enabled on channels',
    description: 'Source',
  },
  selectShown: { id: 'channels.picker.selectShown', defaultMessage: 'Select shown', description: 'Button' },
  clearShown: { id: 'channels.picker.clearShown', defaultMessage: 'Deselect shown', description: 'Button' },
  selectedCount: {
    id: 'channels.picker.selectedCount',
    defaultMessage: '{count} selected',
    description: 'Counter',
  },
  empty: { id: 'channels.picker.empty', defaultMessage: 'No models', description: 'Empty list' },
});

export const columnDialog = defineMessages({
  title: { id: 'channels.columnDialog.title', defaultMessage: 'Column settings', description: 'Dialog title' },
  reset: { id: 'channels.columnDialog.reset', defaultMessage: 'Reset to default', description: 'Button' },
  hint: {
    id: 'channels.columnDialog.hint',
    defaultMessage: 'Choose the columns to show; the choice is kept in this browser.',
    description: 'Help',
  },
});

/** Type names, keyed like CHANNEL_TYPE. */
export const typeNames = defineMessages({
  openai: { id: 'channels.type.openai', defaultMessage: 'OpenAI', description: 'Channel type name' },
  midjourney: { id: 'channels.type.midjourney', defaultMessage: 'Midjourney Proxy', description: 'Channel type name' },
  azure: { id: 'channels.type.azure', defaultMessage: 'Azure OpenAI', description: 'Channel type name' },
  ollama: { id: 'channels.type.ollama', defaultMessage: 'Ollama', description: 'Channel type name' },
  midjourneyPlus: {
    id: 'channels.type.midjourneyPlus',
    defaultMessage: 'Midjourney Proxy Plus',
    description: 'Channel type name',
  },
  openaiMax: { id: 'channels.type.openaiMax', defaultMessage: 'OpenAIMax', description: 'Channel type name' },
  ohMyGpt: { id: 'channels.type.ohMyGpt', defaultMessage: 'OhMyGPT', description: 'Channel type name' },
  custom: { id: 'channels.type.custom', defaultMessage: 'Custom channel', description: 'Channel type name' },
  ails: { id: 'channels.type.ails', defaultMessage: 'AILS', description: 'Channel type name' },
  aiProxy: { id: 'channels.type.aiProxy', defaultMessage: 'AI Proxy', description: 'Channel type name' },
  palm: { id: 'channels.type.palm', defaultMessage: 'Google PaLM2', description: 'Channel type name' },
  api2gpt: { id: 'channels.type.api2gpt', defaultMessage: 'API2GPT', description: 'Channel type name' },
  aigc2d: { id: 'channels.type.aigc2d', defaultMessage: 'AIGC2D', description: 'Channel type name' },
  anthropic: { id: 'channels.type.anthropic', defaultMessage: 'Anthropic Claude', description: 'Channel type name' },
  baidu: { id: 'channels.type.baidu', defaultMessage: 'Baidu ERNIE (Qianfan)', description: 'Channel type name' },
  zhipu: { id: 'channels.type.zhipu', defaultMessage: 'Zhipu ChatGLM', description: 'Channel type name' },
  ali: { id: 'channels.type.ali', defaultMessage: 'Alibaba Tongyi Qianwen', description: 'Channel type name' },
  xunfei: { id: 'channels.type.xunfei', defaultMessage: 'iFlytek Spark', description: 'Channel type name' },
  ai360: { id: 'channels.type.ai360', defaultMessage: '360 AI Brain', description: 'Channel type name' },
  openRouter: { id: 'channels.type.openRouter', defaultMessage: 'OpenRouter', description: 'Channel type name' },
  aiProxyLibrary: {
    id: 'channels.type.aiProxyLibrary',
    defaultMessage: 'Knowledge base: AI Proxy',
    description: 'Channel type name',
  },
  fastGpt: { id: 'channels.type.fastGpt', defaultMessage: 'FastGPT', description: 'Channel type name' },
  tencent: { id: 'channels.type.tencent', defaultMessage: 'Tencent Hunyuan', description: 'Channel type name' },
  gemini: { id: 'channels.type.gemini', defaultMessage: 'Google Gemini', description: 'Channel type name' },
  moonshot: { id: 'channels.type.moonshot', defaultMessage: 'Moonshot', description: 'Channel type name' },
  zhipuV4: { id: 'channels.type.zhipuV4', defaultMessage: 'Zhipu GLM-4V', description: 'Channel type name' },
  perplexity: { id: 'channels.type.perplexity', defaultMessage: 'Perplexity', description: 'Channel type name' },
  lingYiWanWu: { id: 'channels.type.lingYiWanWu', defaultMessage: '01.AI (Yi)', description: 'Channel type name' },
  aws: { id: 'channels.type.aws', defaultMessage: 'AWS Bedrock', description: 'Channel type name' },
  cohere: { id: 'channels.type.cohere', defaultMessage: 'Cohere', description: 'Channel type name' },
  miniMax: { id: 'channels.type.miniMax', defaultMessage: 'MiniMax', description: 'Channel type name' },
  suno: { id: 'channels.type.suno', defaultMessage: 'Suno API', description: 'Channel type name' },
  dify: { id: 'channels.type.dify', defaultMessage: 'Dify', description: 'Channel type name' },
  jina: { id: 'channels.type.jina', defaultMessage: 'Jina', description: 'Channel type name' },
  cloudflare: { id: 'channels.type.cloudflare', defaultMessage: 'Cloudflare', description: 'Channel type name' },
  siliconFlow: { id: 'channels.type.siliconFlow', defaultMessage: 'SiliconFlow', description: 'Channel type name' },
  vertexAi: { id: 'channels.type.vertexAi', defaultMessage: 'Vertex AI', description: 'Channel type name' },
  mistral: { id: 'channels.type.mistral', defaultMessage: 'Mistral AI', description: 'Channel type name' },
  deepSeek: { id: 'channels.type.deepSeek', defaultMessage: 'DeepSeek', description: 'Channel type name' },
  mokaAi: { id: 'channels.type.mokaAi', defaultMessage: 'MokaAI', description: 'Channel type name' },
  volcEngine: { id: 'channels.type.volcEngine', defaultMessage: 'VolcEngine Ark (Doubao)', description: 'Channel type name' },
  baiduV2: { id: 'channels.type.baiduV2', defaultMessage: 'Baidu Qianfan V2', description: 'Channel type name' },
  xinference: { id: 'channels.type.xinference', defaultMessage: 'Xinference', description: 'Channel type name' },
  xai: { id: 'channels.type.xai', defaultMessage: 'xAI', description: 'Channel type name' },
  coze: { id: 'channels.type.coze', defaultMessage: 'Coze', description: 'Channel type name' },
  kling: { id: 'channels.type.kling', defaultMessage: 'Kling', description: 'Channel type name' },
  jimeng: { id: 'channels.type.jimeng', defaultMessage: 'Jimeng', description: 'Channel type name' },
  vidu: { id: 'channels.type.vidu', defaultMessage: 'Vidu', description: 'Channel type name' },
  submodel: { id: 'channels.type.submodel', defaultMessage: 'SubModel', description: 'Channel type name' },
  doubaoVideo: { id: 'channels.type.doubaoVideo', defaultMessage: 'Doubao video', description: 'Channel type name' },
  sora: { id: 'channels.type.sora', defaultMessage: 'Sora', description: 'Channel type name' },
  replicate: { id: 'channels.type.replicate', defaultMessage: 'Replicate', description: 'Channel type name' },
  codex: { id: 'channels.type.codex', defaultMessage: 'ChatGPT subscription (Codex)', description: 'Channel type name' },
  advancedCustom: { id: 'channels.type.advancedCustom', defaultMessage: 'Advanced custom', description: 'Channel type name' },
});
