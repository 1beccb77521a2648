import { defineMessages } from '../i18n/define';

export const common = defineMessages({
  save: { id: 'common.save', defaultMessage: 'Save', description: 'Save button' },
  submit: { id: 'common.submit', defaultMessage: 'Submit', description: 'Submit button' },
  search: { id: 'common.search', defaultMessage: 'Search', description: 'Search button' },
  edit: { id: 'common.edit', defaultMessage: 'Edit', description: 'Edit action' },
  copy: { id: 'common.copy', defaultMessage: 'Copy', description: 'Copy action' },
  copied: { id: 'common.copied', defaultMessage: 'Copied to clipboard', description: 'Copy succeeded' },
  operationDone: { id: 'common.operationDone', defaultMessage: 'Operation completed', description: 'Generic success toast' },
  total: { id: 'common.total', defaultMessage: 'Total {total}', description: 'Table total count' },
});

/** The error catalogue of spec 1 §8 and spec 3 §8. */
export const errors = defineMessages({
  unauthorized: {
    id: 'errors.unauthorized',
    defaultMessage: 'Not logged in or login expired, please log in again!',
    description: 'HTTP 401 / expired session',
  },
  tooManyRequests: {
    id: 'errors.tooManyRequests',
    defaultMessage: 'Too many requests, try again later',
    description: 'HTTP 429',
  },
  serverError: {
    id: 'errors.serverError',
    defaultMessage: 'Internal server error, contact the administrator',
    description: 'HTTP 500',
  },
  demoSite: { id: 'errors.demoSite', defaultMessage: 'This site is a demo only, no server side', description: 'HTTP 405' },
  generic: { id: 'errors.generic', defaultMessage: 'Error: {message}', description: 'Any other HTTP status' },
  network: { id: 'errors.network', defaultMessage: 'Unable to connect to server', description: 'Network failure' },
  statusLoad: { id: 'errors.statusLoad', defaultMessage: 'Failed to load status', description: 'Status load failure' },
  copyFailed: {
    id: 'errors.copyFailed',
    defaultMessage: 'Cannot copy to clipboard, copy manually',
    description: 'Clipboard failure',
  },
  saveFailed: { id: 'errors.saveFailed', defaultMessage: 'Save failed, retry', description: 'Whole save failed' },
  partialSaveFailed: {
    id: 'errors.partialSaveFailed',
    defaultMessage: 'Some saves failed, retry',
    description: 'Partial save failed',
  },
  updateFailed: { id: 'errors.updateFailed', defaultMessage: 'Update failed', description: 'Settings update failure' },
  turnstileChecking: {
    id: 'errors.turnstileChecking',
    defaultMessage: 'Turnstile is checking the environment, please retry in a few seconds',
    description: 'Human check still running',
  },
  defaultPassword: {
    id: 'errors.defaultPassword',
    defaultMessage: 'You are using the default password, change it immediately!',
    description: 'Root still uses the default password',
  },
});

/** Validation messages of spec 1 §5 and spec 3 §5. */
export const validation = defineMessages({
  usernamePasswordRequired: {
    id: 'validation.usernamePasswordRequired',
    defaultMessage: 'Please enter username and password!',
    description: 'Login: both fields required',
  },
  usernamePasswordEmpty: {
    id: 'validation.usernamePasswordEmpty',
    defaultMessage: 'Username and password cannot be empty!',
    description: 'Add user: both fields required',
  },
  passwordTooShort: {
    id: 'validation.passwordTooShort',
    defaultMessage: 'Password must be at least 8 characters!',
    description: 'Password minimum length',
  },
  passwordMismatch: {
    id: 'validation.passwordMismatch',
    defaultMessage: 'The two passwords do not match',
    description: 'Password confirmation mismatch',
  },
  adminUsernameRequired: {
    id: 'validation.adminUsernameRequired',
    defaultMessage: 'Please enter the admin username',
    description: 'Setup: username required',
  },
  setupPasswordTooShort: {
    id: 'validation.setupPasswordTooShort',
    defaultMessage: 'Password must be at least 8 characters',
    description: 'Setup: password minimum length',
  },
  deleteConfirmMismatch: {
    id: 'validation.deleteConfirmMismatch',
    defaultMessage: 'Please enter your account name to confirm deletion!',
    description: 'Self delete: typed name must equal username',
  },
  emailRequired: { id: 'validation.emailRequired', defaultMessage: 'Please enter an email!', description: 'Email required' },
  codeRequired: {
    id: 'validation.codeRequired',
    defaultMessage: 'Please enter the verification code!',
    description: 'Verification code required',
  },
  transferMinimum: {
    id: 'validation.transferMinimum',
    defaultMessage: 'The minimum transfer amount is {min}',
    description: 'Affiliate transfer below quota-per-unit',
  },
  webhookHttps: {
    id: 'validation.webhookHttps',
    defaultMessage: 'The webhook URL must start with https://',
    description: 'Webhook URL must be https',
  },
  serverAddressFirst: {
    id: 'validation.serverAddressFirst',
    defaultMessage: 'Please fill in the server address first',
    description: 'Payment settings need ServerAddress',
  },
  topupGroupRatioJson: {
    id: 'validation.topupGroupRatioJson',
    defaultMessage: 'The top-up group ratio is not a valid JSON string',
    description: 'TopupGroupRatio must be JSON',
  },
  invalidJson: {
    id: 'validation.invalidJson',
    defaultMessage: '{name} is not a valid JSON string',
    description: 'JSON setting invalid',
  },
  emailDomainFormat: {
    id: 'validation.emailDomainFormat',
    defaultMessage: 'Invalid email domain format',
    description: 'Whitelist domain pattern',
  },
  emailDomainDuplicate: {
    id: 'validation.emailDomainDuplicate',
    defaultMessage: 'This domain already exists in the whitelist',
    description: 'Whitelist duplicate',
  },
  wellKnownUrl: {
    id: 'validation.wellKnownUrl',
    defaultMessage: 'The well-known URL must start with http:// or https://',
    description: 'OIDC well-known URL scheme',
  },
  wellKnownFetchFailed: {
    id: 'validation.wellKnownFetchFailed',
    defaultMessage: 'Failed to fetch the OIDC configuration: {message}',
    description: 'OIDC discovery failed',
  },
  rebateRange: {
    id: 'validation.rebateRange',
    defaultMessage: 'The rebate percentage must be between 0 and 100',
    description: 'Rebate percentage range',
  },
  nothingChanged: {
    id: 'validation.nothingChanged',
    defaultMessage: 'You seem to have changed nothing',
    description: 'Save with no changes',
  },
  logCleanupTime: {
    id: 'validation.logCleanupTime',
    defaultMessage: 'Please choose a time for the log cleanup',
    description: 'Log cleanup needs a time',
  },
  minValue: { id: 'validation.minValue', defaultMessage: '{name} must be at least {min}', description: 'Number below minimum' },
});
