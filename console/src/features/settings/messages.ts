import type { MessageDescriptor } from 'react-intl';
import { defineMessages } from '../../i18n/define';
import { FIELD_LABELS, keySlug, type OptionKey } from './fieldLabels';

/** One label message per option key: `settings.field.<slug>`. */
export const fieldLabels = Object.fromEntries(
  Object.entries(FIELD_LABELS).map(([key, en]) => [
    key,
    { id: `settings.field.${keySlug(key)}`, defaultMessage: en, description: `Label of option ${key}` },
  ]),
) as Record<OptionKey, MessageDescriptor>;

export const tabs = defineMessages({
  operation: { id: 'settings.tabs.operation', defaultMessage: 'Operation settings', description: 'Tab' },
  rateLimit: { id: 'settings.tabs.rateLimit', defaultMessage: 'Rate-limit settings', description: 'Tab' },
  model: { id: 'settings.tabs.model', defaultMessage: 'Model-related settings', description: 'Tab' },
  system: { id: 'settings.tabs.system', defaultMessage: 'System settings', description: 'Tab' },
  other: { id: 'settings.tabs.other', defaultMessage: 'Other settings', description: 'Tab' },
  rootOnly: {
    id: 'settings.tabs.rootOnly',
    defaultMessage: 'Only the super administrator can change the settings.',
    description: 'Settings page for a non-root admin',
  },
});

export const panels = defineMessages({
  general: { id: 'settings.panels.general', defaultMessage: 'General', description: 'Panel' },
  worker: { id: 'settings.panels.worker', defaultMessage: 'Proxy worker', description: 'Panel' },
  payment: { id: 'settings.panels.payment', defaultMessage: 'Payment', description: 'Panel' },
  login: { id: 'settings.panels.login', defaultMessage: 'Login and registration', description: 'Panel' },
  whitelist: { id: 'settings.panels.whitelist', defaultMessage: 'Email domain whitelist', description: 'Panel' },
  smtp: { id: 'settings.panels.smtp', defaultMessage: 'SMTP', description: 'Panel' },
  oidc: { id: 'settings.panels.oidc', defaultMessage: 'OIDC', description: 'Panel' },
  github: { id: 'settings.panels.github', defaultMessage: 'GitHub OAuth', description: 'Panel' },
  linuxdo: { id: 'settings.panels.linuxdo', defaultMessage: 'LinuxDO OAuth', description: 'Panel' },
  wechat: { id: 'settings.panels.wechat', defaultMessage: 'WeChat server', description: 'Panel' },
  telegram: { id: 'settings.panels.telegram', defaultMessage: 'Telegram login widget', description: 'Panel' },
  turnstile: { id: 'settings.panels.turnstile', defaultMessage: 'Turnstile human verification', description: 'Panel' },
  operation: { id: 'settings.panels.operation', defaultMessage: 'General operation', description: 'Panel' },
  drawing: { id: 'settings.panels.drawing', defaultMessage: 'Drawing', description: 'Panel' },
  sensitive: { id: 'settings.panels.sensitive', defaultMessage: 'Sensitive words', description: 'Panel' },
  log: { id: 'settings.panels.log', defaultMessage: 'Logs', description: 'Panel' },
  dashboard: { id: 'settings.panels.dashboard', defaultMessage: 'Data dashboard', description: 'Panel' },
  monitor: { id: 'settings.panels.monitor', defaultMessage: 'Channel monitoring', description: 'Panel' },
  checkIn: { id: 'settings.panels.checkIn', defaultMessage: 'Check-in', description: 'Panel' },
  quota: { id: 'settings.panels.quota', defaultMessage: 'Quotas', description: 'Panel' },
  rebate: { id: 'settings.panels.rebate', defaultMessage: 'Rebate', description: 'Panel' },
  chats: { id: 'settings.panels.chats', defaultMessage: 'Chat links', description: 'Panel' },
  personalization: { id: 'settings.panels.personalization', defaultMessage: 'Personalization', description: 'Panel' },
});

export const settings = defineMessages({
  saved: { id: 'settings.saved', defaultMessage: 'Settings saved', description: 'Save success' },
  secretHint: {
    id: 'settings.secretHint',
    defaultMessage: 'Stored secrets are never shown; leave empty to keep the current value',
    description: 'Secret field hint',
  },
  confirmPasswordLoginOff: {
    id: 'settings.confirmPasswordLoginOff',
    defaultMessage: 'Disable password login? Make sure another sign-in method works, or you may lock yourself out.',
    description: 'Confirm before disabling password login',
  },
  granularityHour: { id: 'settings.granularity.hour', defaultMessage: 'Hour', description: 'Dashboard granularity' },
  granularityDay: { id: 'settings.granularity.day', defaultMessage: 'Day', description: 'Dashboard granularity' },
  granularityWeek: { id: 'settings.granularity.week', defaultMessage: 'Week', description: 'Dashboard granularity' },
  whitelistAdd: { id: 'settings.whitelist.add', defaultMessage: 'Add domain', description: 'Whitelist add button' },
  whitelistPlaceholder: {
    id: 'settings.whitelist.placeholder',
    defaultMessage: 'e.g. example.com',
    description: 'Whitelist input',
  },
  oidcDiscover: {
    id: 'settings.oidc.discover',
    defaultMessage: 'Fetch endpoints from the well-known URL',
    description: 'OIDC discovery button',
  },
  oidcDiscovered: { id: 'settings.oidc.discovered', defaultMessage: 'Endpoints filled in', description: 'OIDC discovery done' },
  logCleanup: { id: 'settings.log.cleanup', defaultMessage: 'Clear logs before this time', description: 'Log cleanup button' },
  logCleanupConfirm: {
    id: 'settings.log.cleanupConfirm',
    defaultMessage: 'Delete all logs before the chosen time? This cannot be undone.',
    description: 'Log cleanup confirmation',
  },
  logCleared: { id: 'settings.log.cleared', defaultMessage: '{count} logs cleared', description: 'Log cleanup done' },
  logCleanupFailed: {
    id: 'settings.log.cleanupFailed',
    defaultMessage: 'Log cleanup failed: {message}',
    description: 'Log cleanup failure',
  },
  updateCheck: { id: 'settings.update.check', defaultMessage: 'Check for updates', description: 'Update check button' },
  updateCurrent: { id: 'settings.update.current', defaultMessage: 'Current version: {version}', description: 'Current version' },
  updateLatest: { id: 'settings.update.latest', defaultMessage: 'Latest release: {version}', description: 'Latest version' },
  updateUpToDate: { id: 'settings.update.upToDate', defaultMessage: 'You are on the latest version', description: 'No update' },
  updateFailed: {
    id: 'settings.update.failed',
    defaultMessage: 'Failed to check for updates, try later',
    description: 'Update check failure',
  },
  updateNotConfigured: {
    id: 'settings.update.notConfigured',
    defaultMessage: 'No release feed is configured for this build (VITE_RELEASES_URL).',
    description: 'Update check not configured',
  },
});
