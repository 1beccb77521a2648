/** Messages of the pricing sub-tabs: model ratio JSON, visual ratio editor, unset-ratio models. */
import { defineMessages } from '../../../i18n/define';

/** Validation of the pricing editor and the batch set (spec 2 §5.2). */
export const ratio = defineMessages({
  enterNumber: { id: 'settings.ratio.enterNumber', defaultMessage: 'Please enter a number', description: 'Non-numeric cell' },
  nameExists: { id: 'settings.ratio.nameExists', defaultMessage: 'Model name already exists', description: 'Duplicate model' },
  nameRequired: { id: 'settings.ratio.nameRequired', defaultMessage: 'Please enter the model name', description: 'Empty name' },
  priceZero: { id: 'settings.ratio.priceZero', defaultMessage: 'Model price cannot be 0', description: 'Fixed price 0' },
  priceOrRatioRequired: {
    id: 'settings.ratio.priceOrRatioRequired',
    defaultMessage: 'Please enter a fixed price or a model ratio',
    description: 'A model needs a price or a ratio',
  },
  selectFirst: {
    id: 'settings.ratio.selectFirst',
    defaultMessage: 'Please select models to batch set first',
    description: 'Batch set without selection',
  },
  bothRatiosRequired: {
    id: 'settings.ratio.bothRatiosRequired',
    defaultMessage: 'Please enter both the model ratio and the completion ratio',
    description: 'Batch set of both ratios',
  },
  valueRequired: { id: 'settings.ratio.valueRequired', defaultMessage: 'Please enter a value', description: 'Batch value empty' },
  validNumber: {
    id: 'settings.ratio.validNumber',
    defaultMessage: 'Please enter a valid number',
    description: 'Batch value not a number',
  },
});

export const subTabs = defineMessages({
  general: { id: 'settings.operation.general', defaultMessage: 'General', description: 'Operation sub-tab' },
  ratios: { id: 'settings.operation.ratios', defaultMessage: 'Model ratio settings', description: 'Operation sub-tab' },
  visual: { id: 'settings.operation.visual', defaultMessage: 'Visual ratio editor', description: 'Operation sub-tab' },
  unset: { id: 'settings.operation.unset', defaultMessage: 'Unset-ratio models', description: 'Operation sub-tab' },
});

export const ratioJson = defineMessages({
  title: { id: 'settings.ratioJson.title', defaultMessage: 'Model ratio settings', description: 'Panel' },
  reset: { id: 'settings.ratioJson.reset', defaultMessage: 'Reset model ratios', description: 'Reset button' },
  resetConfirm: {
    id: 'settings.ratioJson.resetConfirm',
    defaultMessage:
      'Reset the model prices, model ratios, completion ratios and cache ratios to the built-in table? Your own entries in them are lost.',
    description: 'Reset confirmation',
  },
  resetDone: { id: 'settings.ratioJson.resetDone', defaultMessage: 'Model ratios reset', description: 'Reset success' },
  modelRatioHint: {
    id: 'settings.ratioJson.modelRatioHint',
    defaultMessage: 'Model name → ratio. Ratio 1 costs $2 per million input tokens.',
    description: 'ModelRatio hint',
  },
  modelPriceHint: {
    id: 'settings.ratioJson.modelPriceHint',
    defaultMessage: 'Model name → USD per request. A model listed here is billed per request and its ratios are ignored.',
    description: 'ModelPrice hint',
  },
  completionRatioHint: {
    id: 'settings.ratioJson.completionRatioHint',
    defaultMessage: 'Model name → output price ÷ input price; 1 when not listed.',
    description: 'CompletionRatio hint',
  },
  cacheRatioHint: {
    id: 'settings.ratioJson.cacheRatioHint',
    defaultMessage: 'Model name → cached-input price ÷ input price.',
    description: 'CacheRatio hint',
  },
  createCacheRatioHint: {
    id: 'settings.ratioJson.createCacheRatioHint',
    defaultMessage: 'Model name → price of prompt tokens written to the provider cache ÷ input price (Claude; 1.25 when unset).',
    description: 'CreateCacheRatio hint',
  },
  groupRatioHint: {
    id: 'settings.ratioJson.groupRatioHint',
    defaultMessage: 'Group name → multiplier applied to every price for that group.',
    description: 'GroupRatio hint',
  },
  groupGroupRatioHint: {
    id: 'settings.ratioJson.groupGroupRatioHint',
    defaultMessage:
      'User group → group used → multiplier that replaces the group ratio for those users (e.g. vip users pay 0.9 in default).',
    description: 'GroupGroupRatio hint',
  },
  userUsableGroupsHint: {
    id: 'settings.ratioJson.userUsableGroupsHint',
    defaultMessage: 'Group name → description; the groups users may pick for their tokens.',
    description: 'UserUsableGroups hint',
  },
});

export const editor = defineMessages({
  search: { id: 'settings.ratioEditor.search', defaultMessage: 'Search model name', description: 'Search box' },
  add: { id: 'settings.ratioEditor.add', defaultMessage: 'Add model', description: 'Add button' },
  saveChanges: { id: 'settings.ratioEditor.saveChanges', defaultMessage: 'Save changes', description: 'Save button' },
  unsaved: {
    id: 'settings.ratioEditor.unsaved',
    defaultMessage: 'You have unsaved changes; they apply once saved.',
    description: 'Unsaved edits hint',
  },
  model: { id: 'settings.ratioEditor.model', defaultMessage: 'Model', description: 'Column' },
  billing: { id: 'settings.ratioEditor.billing', defaultMessage: 'Billing', description: 'Column' },
  perRequest: { id: 'settings.ratioEditor.perRequest', defaultMessage: 'Per request', description: 'Billing type' },
  perToken: { id: 'settings.ratioEditor.perToken', defaultMessage: 'Per token', description: 'Billing type' },
  price: { id: 'settings.ratioEditor.price', defaultMessage: 'Fixed price (USD per request)', description: 'Column / field' },
  ratio: { id: 'settings.ratioEditor.ratio', defaultMessage: 'Model ratio', description: 'Column / field' },
  completionRatio: {
    id: 'settings.ratioEditor.completionRatio',
    defaultMessage: 'Completion ratio',
    description: 'Column / field',
  },
  millionPrice: { id: 'settings.ratioEditor.millionPrice', defaultMessage: 'Price per 1M tokens', description: 'Column' },
  millionPriceValue: {
    id: 'settings.ratioEditor.millionPriceValue',
    defaultMessage: 'Input ${input} · Output ${output}',
    description: 'Per-1M-token prices of a row',
  },
  requestPriceValue: {
    id: 'settings.ratioEditor.requestPriceValue',
    defaultMessage: '${price} per request',
    description: 'Fixed price of a row',
  },
  actions: { id: 'settings.ratioEditor.actions', defaultMessage: 'Actions', description: 'Column' },
  delete: { id: 'settings.ratioEditor.delete', defaultMessage: 'Delete', description: 'Row action' },
  deleteConfirm: {
    id: 'settings.ratioEditor.deleteConfirm',
    defaultMessage: 'Remove {name} from the pricing? It takes effect when you save the changes.',
    description: 'Delete confirmation',
  },
  addTitle: { id: 'settings.ratioEditor.addTitle', defaultMessage: 'Add model', description: 'Modal title' },
  editTitle: { id: 'settings.ratioEditor.editTitle', defaultMessage: 'Edit {name}', description: 'Modal title' },
  name: { id: 'settings.ratioEditor.name', defaultMessage: 'Model name', description: 'Field' },
  inputPrice: {
    id: 'settings.ratioEditor.inputPrice',
    defaultMessage: 'Input price (USD per 1M tokens)',
    description: 'Field',
  },
  outputPrice: {
    id: 'settings.ratioEditor.outputPrice',
    defaultMessage: 'Output price (USD per 1M tokens)',
    description: 'Field',
  },
  priceHint: {
    id: 'settings.ratioEditor.priceHint',
    defaultMessage: 'A fixed price bills each request the same; while it is set the ratios are disabled.',
    description: 'Fixed price hint',
  },
  millionHint: {
    id: 'settings.ratioEditor.millionHint',
    defaultMessage:
      'Enter the ratios, or the prices per 1M tokens: ratio = input price ÷ 2, completion ratio = output price ÷ input price.',
    description: 'Per-1M-token price hint',
  },
  ok: { id: 'settings.ratioEditor.ok', defaultMessage: 'OK', description: 'Modal OK' },
  cancel: { id: 'settings.ratioEditor.cancel', defaultMessage: 'Cancel', description: 'Modal cancel' },
});

export const unset = defineMessages({
  intro: {
    id: 'settings.unset.intro',
    defaultMessage:
      'Models that enabled channels serve but that have neither a fixed price nor a model ratio. Requests for them fail unless self-use mode is on.',
    description: 'Unset models intro',
  },
  empty: {
    id: 'settings.unset.empty',
    defaultMessage: 'Every model in use has a price or a ratio',
    description: 'No unset models',
  },
  refresh: { id: 'settings.unset.refresh', defaultMessage: 'Refresh', description: 'Refresh button' },
  batchSet: { id: 'settings.unset.batchSet', defaultMessage: 'Batch set', description: 'Batch set button' },
  batchTitle: {
    id: 'settings.unset.batchTitle',
    defaultMessage: 'Batch set {count, plural, one {# model} other {# models}}',
    description: 'Batch set dialog title',
  },
  selected: { id: 'settings.unset.selected', defaultMessage: '{count} selected', description: 'Selection count' },
  mode: { id: 'settings.unset.mode', defaultMessage: 'Set', description: 'Batch mode field' },
  modePrice: { id: 'settings.unset.modePrice', defaultMessage: 'Fixed price', description: 'Batch mode' },
  modeRatio: { id: 'settings.unset.modeRatio', defaultMessage: 'Model ratio', description: 'Batch mode' },
  modeBoth: {
    id: 'settings.unset.modeBoth',
    defaultMessage: 'Model ratio and completion ratio',
    description: 'Batch mode',
  },
  value: { id: 'settings.unset.value', defaultMessage: 'Value', description: 'Batch value field' },
  applied: {
    id: 'settings.unset.applied',
    defaultMessage: 'Set on {count, plural, one {# model} other {# models}}; save the changes to apply them',
    description: 'Batch set done',
  },
  loadFailed: {
    id: 'settings.unset.loadFailed',
    defaultMessage: 'Failed to load the unset models: {message}',
    description: 'Load failure',
  },
});
