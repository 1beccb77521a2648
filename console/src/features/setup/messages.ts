import { defineMessages } from '../../i18n/define';

export const setup = defineMessages({
  title: { id: 'setup.title', defaultMessage: 'System initialisation', description: 'Setup page title' },
  intro: {
    id: 'setup.intro',
    defaultMessage: 'Create the administrator account and choose how this installation is used.',
    description: 'Setup intro',
  },
  username: { id: 'setup.username', defaultMessage: 'Admin username', description: 'Setup username' },
  password: { id: 'setup.password', defaultMessage: 'Password (at least 8 characters)', description: 'Setup password' },
  confirmPassword: { id: 'setup.confirmPassword', defaultMessage: 'Confirm password', description: 'Setup confirm password' },
  rootExists: {
    id: 'setup.rootExists',
    defaultMessage: 'An administrator account already exists.',
    description: 'Setup: root exists',
  },
  mode: { id: 'setup.mode', defaultMessage: 'Usage mode', description: 'Setup usage mode' },
  modeExternal: { id: 'setup.mode.external', defaultMessage: 'External operation', description: 'Mode: external' },
  modeSelf: { id: 'setup.mode.self', defaultMessage: 'Self-use', description: 'Mode: self use' },
  modeDemo: { id: 'setup.mode.demo', defaultMessage: 'Demo site', description: 'Mode: demo' },
  modeHelp: { id: 'setup.mode.help', defaultMessage: 'About the modes', description: 'Open the modes dialog' },
  modeHelpExternal: {
    id: 'setup.mode.help.external',
    defaultMessage: 'External operation: for selling or sharing access to other users; registration and billing apply.',
    description: 'Modes dialog: external',
  },
  modeHelpSelf: {
    id: 'setup.mode.help.self',
    defaultMessage: 'Self-use: for yourself only; registration is hidden and prices need not be set for every model.',
    description: 'Modes dialog: self use',
  },
  modeHelpDemo: {
    id: 'setup.mode.help.demo',
    defaultMessage: 'Demo site: shows the product to visitors with restricted functions.',
    description: 'Modes dialog: demo',
  },
  sqliteWarning: {
    id: 'setup.sqliteWarning',
    defaultMessage:
      'You are using a file-based SQLite database. Keep the data directory on persistent storage and back it up, or use PostgreSQL in production.',
    description: 'SQLite warning',
  },
  token: { id: 'setup.token', defaultMessage: 'Setup token', description: 'Setup token field' },
  tokenHint: {
    id: 'setup.tokenHint',
    defaultMessage: "Printed in the control plane's log at start; not needed when the browser runs on the same machine.",
    description: 'Setup token hint',
  },
  submit: { id: 'setup.submit', defaultMessage: 'Initialise', description: 'Setup submit' },
  success: { id: 'setup.success', defaultMessage: 'System initialised, please log in', description: 'Setup success' },
  loadFailed: {
    id: 'setup.loadFailed',
    defaultMessage: 'Failed to get the initialisation status',
    description: 'GET /api/setup failed',
  },
  submitFailed: {
    id: 'setup.submitFailed',
    defaultMessage: 'Initialisation failed, please retry',
    description: 'POST /api/setup failed without message',
  },
});
