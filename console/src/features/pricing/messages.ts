import { defineMessages } from '../../i18n/define';

export const pricing = defineMessages({
  title: { id: 'pricing.title', defaultMessage: 'Model pricing', description: 'Pricing page title' },
  signedIn: {
    id: 'pricing.banner.signedIn',
    defaultMessage: 'Your group is {group}, with a group ratio of {ratio}.',
    description: 'Banner for a signed-in viewer: their group and its ratio',
  },
  viewing: {
    id: 'pricing.banner.viewing',
    defaultMessage: 'Prices below are for the group {group} (group ratio {ratio}).',
    description: 'Banner line: the group whose prices are shown, when another group is chosen',
  },
  signedOut: {
    id: 'pricing.banner.signedOut',
    defaultMessage:
      'You are not signed in: prices are shown for the default group (group ratio {ratio}). Sign in to see the prices of your own group.',
    description: 'Warning banner for a signed-out visitor',
  },
  formulaCurrency: {
    id: 'pricing.formula.currency',
    defaultMessage:
      'Pay as you go: cost in USD = group ratio × model ratio × (input tokens + output tokens × completion ratio) / {quotaPerUnit}. A model billed per call costs its price × group ratio.',
    description: 'The pay-as-you-go formula when quotas are shown as currency',
  },
  formulaQuota: {
    id: 'pricing.formula.quota',
    defaultMessage:
      'Pay as you go: quota charged = group ratio × model ratio × (input tokens + output tokens × completion ratio). A model billed per call costs its price × {quotaPerUnit} × group ratio in quota.',
    description: 'The pay-as-you-go formula when quotas are shown as raw quota',
  },
  search: { id: 'pricing.search', defaultMessage: 'Search models', description: 'Fuzzy model-name search placeholder' },
  group: { id: 'pricing.group', defaultMessage: 'Group', description: 'Group selector label' },
  groupOption: {
    id: 'pricing.groupOption',
    defaultMessage: '{group} (ratio {ratio})',
    description: 'Group selector option: name and ratio',
  },
  allVendors: { id: 'pricing.vendor.all', defaultMessage: 'All vendors', description: 'Vendor filter: no filter' },
  otherVendor: { id: 'pricing.vendor.other', defaultMessage: 'Other', description: 'Vendor of a model no known vendor matches' },
  allEndpoints: {
    id: 'pricing.endpoint.all',
    defaultMessage: 'All endpoint types',
    description: 'Endpoint type filter: no filter',
  },
  copySelected: {
    id: 'pricing.copySelected',
    defaultMessage: 'Copy selected models',
    description: 'Copy the names of the selected models',
  },
  noneSelected: {
    id: 'pricing.noneSelected',
    defaultMessage: 'Select at least one model first',
    description: 'Copy selected with nothing selected',
  },
  count: {
    id: 'pricing.count',
    defaultMessage: '{shown} of {total} models',
    description: 'How many models the filters keep',
  },
  emptyNone: {
    id: 'pricing.empty.none',
    defaultMessage: 'No model is served by an enabled channel yet',
    description: 'Empty table: the server lists no model',
  },
  emptyFiltered: {
    id: 'pricing.empty.filtered',
    defaultMessage: 'No model matches the search and filters',
    description: 'Empty table: the filters keep nothing',
  },
});

export const endpointTypes = defineMessages({
  chat: { id: 'pricing.endpoint.chat', defaultMessage: 'Chat', description: 'Endpoint type: chat' },
  embeddings: { id: 'pricing.endpoint.embeddings', defaultMessage: 'Embeddings', description: 'Endpoint type: embeddings' },
  rerank: { id: 'pricing.endpoint.rerank', defaultMessage: 'Rerank', description: 'Endpoint type: rerank' },
  image: { id: 'pricing.endpoint.image', defaultMessage: 'Image generation', description: 'Endpoint type: images' },
  audio: { id: 'pricing.endpoint.audio', defaultMessage: 'Audio', description: 'Endpoint type: speech and transcription' },
  moderation: { id: 'pricing.endpoint.moderation', defaultMessage: 'Moderation', description: 'Endpoint type: moderation' },
});

export const columns = defineMessages({
  available: {
    id: 'pricing.columns.available',
    defaultMessage: 'Available',
    description: 'Column: available in the viewed group',
  },
  model: { id: 'pricing.columns.model', defaultMessage: 'Model', description: 'Column: model name' },
  billing: { id: 'pricing.columns.billing', defaultMessage: 'Billing', description: 'Column: billing type' },
  groups: { id: 'pricing.columns.groups', defaultMessage: 'Groups', description: 'Column: groups serving the model' },
  ratios: { id: 'pricing.columns.ratios', defaultMessage: 'Ratios', description: 'Column: ratios' },
  price: { id: 'pricing.columns.price', defaultMessage: 'Price', description: 'Column: price' },
  copyModel: {
    id: 'pricing.columns.copyModel',
    defaultMessage: 'Click to copy the model name',
    description: 'Tooltip on the model name',
  },
  switchGroup: {
    id: 'pricing.columns.switchGroup',
    defaultMessage: 'Show the prices of this group',
    description: 'Tooltip on a group tag',
  },
  availableYes: {
    id: 'pricing.columns.availableYes',
    defaultMessage: 'Available in the group {group}',
    description: 'Availability icon: served in the viewed group',
  },
  availableNo: {
    id: 'pricing.columns.availableNo',
    defaultMessage: 'Not available in the group {group}',
    description: 'Availability icon: not served in the viewed group',
  },
  perToken: { id: 'pricing.billing.perToken', defaultMessage: 'Per token', description: 'Billing type 0' },
  perCall: { id: 'pricing.billing.perCall', defaultMessage: 'Per call', description: 'Billing type 1' },
  input: { id: 'pricing.price.input', defaultMessage: 'Input {price} / 1M tokens', description: 'Input price per 1M tokens' },
  output: { id: 'pricing.price.output', defaultMessage: 'Output {price} / 1M tokens', description: 'Output price per 1M tokens' },
  cachedInput: {
    id: 'pricing.price.cachedInput',
    defaultMessage: 'Cached input {price} / 1M tokens',
    description: 'Cached input price per 1M tokens',
  },
  perCallPrice: { id: 'pricing.price.perCall', defaultMessage: '{price} / call', description: 'Fixed price per call' },
  quotaAmount: { id: 'pricing.price.quota', defaultMessage: '{amount} quota', description: 'An amount shown as quota' },
  modelRatio: { id: 'pricing.ratio.model', defaultMessage: 'Model ratio {ratio}', description: 'Model ratio line' },
  completionRatio: {
    id: 'pricing.ratio.completion',
    defaultMessage: 'Completion ratio {ratio}',
    description: 'Completion ratio line',
  },
  cacheRatio: { id: 'pricing.ratio.cache', defaultMessage: 'Cache ratio {ratio}', description: 'Cache ratio line' },
  groupRatio: { id: 'pricing.ratio.group', defaultMessage: 'Group ratio {ratio}', description: 'Group ratio line' },
  modelPrice: {
    id: 'pricing.ratio.modelPrice',
    defaultMessage: 'Base price {price} / call',
    description: 'Per-call model: its price before the group ratio',
  },
});
