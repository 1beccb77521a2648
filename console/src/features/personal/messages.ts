import { defineMessages } from '../../i18n/define';

export const account = defineMessages({
  title: { id: 'personal.account.title', defaultMessage: 'Account', description: 'Account card title' },
  roleAdmin: { id: 'personal.account.roleAdmin', defaultMessage: 'Admin', description: 'Card role: super admin' },
  roleUser: { id: 'personal.account.roleUser', defaultMessage: 'Normal user', description: 'Card role: others' },
  balance: { id: 'personal.account.balance', defaultMessage: 'Balance', description: 'Remaining quota' },
  used: { id: 'personal.account.used', defaultMessage: 'Used', description: 'Used quota' },
  requests: { id: 'personal.account.requests', defaultMessage: 'Requests', description: 'Request count' },
  group: { id: 'personal.account.group', defaultMessage: 'Group', description: 'User group' },
  displayName: { id: 'personal.account.displayName', defaultMessage: 'Display name', description: 'Display name field' },
  displayNameSaved: { id: 'personal.account.displayNameSaved', defaultMessage: 'Display name updated', description: 'Toast' },
});

export const models = defineMessages({
  title: { id: 'personal.models.title', defaultMessage: 'Available models', description: 'Models card title' },
  none: { id: 'personal.models.none', defaultMessage: 'No model is available yet', description: 'Empty models' },
  showAll: { id: 'personal.models.showAll', defaultMessage: 'Show all ({count})', description: 'Expand model tags' },
  collapse: { id: 'personal.models.collapse', defaultMessage: 'Collapse', description: 'Collapse model tags' },
});

export const checkIn = defineMessages({
  title: { id: 'personal.checkIn.title', defaultMessage: 'Daily check-in', description: 'Check-in card title' },
  action: { id: 'personal.checkIn.action', defaultMessage: 'Check in', description: 'Check-in button' },
  done: { id: 'personal.checkIn.done', defaultMessage: 'Already checked in today', description: 'Checked-in button' },
  success: { id: 'personal.checkIn.success', defaultMessage: 'Checked in, you gained {amount}', description: 'Check-in success' },
  failed: { id: 'personal.checkIn.failed', defaultMessage: 'Check-in failed, try later', description: 'Check-in failure' },
  unavailable: {
    id: 'personal.checkIn.unavailable',
    defaultMessage: 'Check-in is not available right now',
    description: 'Check-in status could not be loaded',
  },
});

export const invitation = defineMessages({
  title: { id: 'personal.invitation.title', defaultMessage: 'Invitation', description: 'Invitation card title' },
  link: { id: 'personal.invitation.link', defaultMessage: 'Invitation link', description: 'Invitation link label' },
  pending: { id: 'personal.invitation.pending', defaultMessage: 'Pending earnings', description: 'aff_quota' },
  history: { id: 'personal.invitation.history', defaultMessage: 'Total earnings', description: 'aff_history_quota' },
  count: { id: 'personal.invitation.count', defaultMessage: 'Invited users', description: 'aff_count' },
  transfer: { id: 'personal.invitation.transfer', defaultMessage: 'Transfer to balance', description: 'Transfer button' },
  transferAmount: {
    id: 'personal.invitation.transferAmount',
    defaultMessage: 'Quota to transfer (available {available})',
    description: 'Transfer modal field',
  },
  transferred: { id: 'personal.invitation.transferred', defaultMessage: 'Transferred to balance', description: 'Transfer done' },
});

export const bindings = defineMessages({
  title: { id: 'personal.bindings.title', defaultMessage: 'Personal info and bindings', description: 'Bindings card title' },
  email: { id: 'personal.bindings.email', defaultMessage: 'Email', description: 'Email binding' },
  wechat: { id: 'personal.bindings.wechat', defaultMessage: 'WeChat', description: 'WeChat binding' },
  github: { id: 'personal.bindings.github', defaultMessage: 'GitHub', description: 'GitHub binding' },
  oidc: { id: 'personal.bindings.oidc', defaultMessage: 'OIDC', description: 'OIDC binding' },
  linuxdo: { id: 'personal.bindings.linuxdo', defaultMessage: 'LinuxDO', description: 'LinuxDO binding' },
  telegram: { id: 'personal.bindings.telegram', defaultMessage: 'Telegram', description: 'Telegram binding' },
  bind: { id: 'personal.bindings.bind', defaultMessage: 'Bind', description: 'Bind button' },
  change: { id: 'personal.bindings.change', defaultMessage: 'Change', description: 'Change email button' },
  bound: { id: 'personal.bindings.bound', defaultMessage: 'Bound', description: 'Bound state' },
  unbound: { id: 'personal.bindings.unbound', defaultMessage: 'Not bound', description: 'Unbound state' },
  bindEmailTitle: { id: 'personal.bindings.bindEmailTitle', defaultMessage: 'Bind email', description: 'Bind email modal' },
  emailBound: { id: 'personal.bindings.emailBound', defaultMessage: 'Email bound', description: 'Email bound toast' },
  wechatBound: { id: 'personal.bindings.wechatBound', defaultMessage: 'WeChat account bound', description: 'WeChat bound toast' },
  wechatTitle: { id: 'personal.bindings.wechatTitle', defaultMessage: 'Bind WeChat', description: 'WeChat bind modal' },
  telegramTitle: { id: 'personal.bindings.telegramTitle', defaultMessage: 'Bind Telegram', description: 'Telegram bind modal' },
  telegramHint: {
    id: 'personal.bindings.telegramHint',
    defaultMessage: 'Log in with Telegram below to bind your Telegram account.',
    description: 'Telegram bind modal text',
  },
  telegramBound: {
    id: 'personal.bindings.telegramBound',
    defaultMessage: 'Telegram account bound',
    description: 'Telegram bound toast',
  },
  unbind: { id: 'personal.bindings.unbind', defaultMessage: 'Unbind', description: 'Unbind button' },
  unbindConfirm: {
    id: 'personal.bindings.unbindConfirm',
    defaultMessage: 'Unbind {name}? You will no longer be able to sign in with it.',
    description: 'Unbind confirmation',
  },
  unbindDone: { id: 'personal.bindings.unbindDone', defaultMessage: '{name} unbound', description: 'Unbind success toast' },
});

export const notify = defineMessages({
  title: { id: 'personal.notify.title', defaultMessage: 'Notification settings', description: 'Notification card' },
  type: { id: 'personal.notify.type', defaultMessage: 'Notify by', description: 'notify_type' },
  typeEmail: { id: 'personal.notify.typeEmail', defaultMessage: 'Email', description: 'notify_type email' },
  typeWebhook: { id: 'personal.notify.typeWebhook', defaultMessage: 'Webhook', description: 'notify_type webhook' },
  threshold: { id: 'personal.notify.threshold', defaultMessage: 'Quota warning threshold', description: 'Threshold field' },
  webhookUrl: { id: 'personal.notify.webhookUrl', defaultMessage: 'Webhook URL', description: 'Webhook URL field' },
  webhookHelp: {
    id: 'personal.notify.webhookHelp',
    defaultMessage: 'Called by POST; the secret is sent as a Bearer authorization header. https only.',
    description: 'Webhook help',
  },
  webhookSecret: { id: 'personal.notify.webhookSecret', defaultMessage: 'Webhook secret', description: 'Secret field' },
  email: {
    id: 'personal.notify.email',
    defaultMessage: 'Notification email (empty: the bound email)',
    description: 'Notification email field',
  },
  saved: { id: 'personal.notify.saved', defaultMessage: 'Notification settings updated', description: 'Saved toast' },
  failed: {
    id: 'personal.notify.failed',
    defaultMessage: 'Failed to update notification settings',
    description: 'Save failure',
  },
});

export const price = defineMessages({
  title: { id: 'personal.price.title', defaultMessage: 'Price settings', description: 'Price settings card' },
  acceptUnset: {
    id: 'personal.price.acceptUnset',
    defaultMessage: 'Accept models without a price or ratio (billed at the default)',
    description: 'accept_unset_model_ratio_model',
  },
});

export const security = defineMessages({
  title: { id: 'personal.security.title', defaultMessage: 'Security', description: 'Security card' },
  changePassword: { id: 'personal.security.changePassword', defaultMessage: 'Change password', description: 'Button' },
  originalPassword: { id: 'personal.security.originalPassword', defaultMessage: 'Current password', description: 'Field' },
  newPassword: { id: 'personal.security.newPassword', defaultMessage: 'New password', description: 'Field' },
  newPassword2: { id: 'personal.security.newPassword2', defaultMessage: 'Confirm new password', description: 'Field' },
  passwordChanged: { id: 'personal.security.passwordChanged', defaultMessage: 'Password changed', description: 'Toast' },
  accessToken: { id: 'personal.security.accessToken', defaultMessage: 'Generate access token', description: 'Button' },
  accessTokenHint: {
    id: 'personal.security.accessTokenHint',
    defaultMessage: 'A new system access token replaces the old one. Keep it secret.',
    description: 'Access token modal text',
  },
  tokenCopied: {
    id: 'personal.security.tokenCopied',
    defaultMessage: 'Token reset and copied to the clipboard',
    description: 'Toast',
  },
  deleteAccount: { id: 'personal.security.deleteAccount', defaultMessage: 'Delete account', description: 'Button' },
  deleteWarning: {
    id: 'personal.security.deleteWarning',
    defaultMessage: 'This deletes your account and cannot be undone. Type your username "{username}" to confirm.',
    description: 'Delete modal text',
  },
  deleted: { id: 'personal.security.deleted', defaultMessage: 'Account deleted', description: 'Toast' },
});
