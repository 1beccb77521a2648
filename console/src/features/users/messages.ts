import { defineMessages } from '../../i18n/define';

export const users = defineMessages({
  title: { id: 'users.title', defaultMessage: 'Manage users', description: 'Users page title' },
  keyword: {
    id: 'users.search.keyword',
    defaultMessage: 'Search by ID, username, display name or email',
    description: 'Users keyword search placeholder',
  },
  group: { id: 'users.search.group', defaultMessage: 'Group', description: 'Users group filter' },
  add: { id: 'users.add', defaultMessage: 'Add user', description: 'Add user button' },
  created: { id: 'users.created', defaultMessage: 'User created', description: 'Create success toast' },
  updated: { id: 'users.updated', defaultMessage: 'User updated', description: 'Update success toast' },
});

export const columns = defineMessages({
  id: { id: 'users.columns.id', defaultMessage: 'ID', description: 'Column: id' },
  username: { id: 'users.columns.username', defaultMessage: 'Username', description: 'Column: username' },
  group: { id: 'users.columns.group', defaultMessage: 'Group', description: 'Column: group' },
  quota: { id: 'users.columns.quota', defaultMessage: 'Remaining / used', description: 'Column: quota' },
  requests: { id: 'users.columns.requests', defaultMessage: 'Requests', description: 'Column: request count' },
  invitation: { id: 'users.columns.invitation', defaultMessage: 'Invited / earnings', description: 'Column: invitation' },
  role: { id: 'users.columns.role', defaultMessage: 'Role', description: 'Column: role' },
  status: { id: 'users.columns.status', defaultMessage: 'Status', description: 'Column: status' },
  actions: { id: 'users.columns.actions', defaultMessage: 'Actions', description: 'Column: actions' },
});

export const roles = defineMessages({
  user: { id: 'users.role.user', defaultMessage: 'Normal user', description: 'Role 1' },
  admin: { id: 'users.role.admin', defaultMessage: 'Admin', description: 'Role 10' },
  root: { id: 'users.role.root', defaultMessage: 'Super admin', description: 'Role 100' },
});

export const statuses = defineMessages({
  active: { id: 'users.status.active', defaultMessage: 'Active', description: 'Status 1' },
  banned: { id: 'users.status.banned', defaultMessage: 'Banned', description: 'Status 2' },
  other: { id: 'users.status.other', defaultMessage: 'Unknown status', description: 'Other status' },
  deactivated: { id: 'users.status.deactivated', defaultMessage: 'Deactivated', description: 'Deleted user' },
});

export const actions = defineMessages({
  promote: { id: 'users.actions.promote', defaultMessage: 'Promote', description: 'Promote action' },
  demote: { id: 'users.actions.demote', defaultMessage: 'Demote', description: 'Demote action' },
  disable: { id: 'users.actions.disable', defaultMessage: 'Disable', description: 'Disable action' },
  enable: { id: 'users.actions.enable', defaultMessage: 'Enable', description: 'Enable action' },
  delete: { id: 'users.actions.delete', defaultMessage: 'Deactivate', description: 'Delete action (soft)' },
  promoteConfirm: {
    id: 'users.actions.promoteConfirm',
    defaultMessage: 'Promote {name} to admin?',
    description: 'Promote confirmation',
  },
  demoteConfirm: {
    id: 'users.actions.demoteConfirm',
    defaultMessage: 'Demote {name} to normal user?',
    description: 'Demote confirmation',
  },
  deleteConfirm: {
    id: 'users.actions.deleteConfirm',
    defaultMessage: 'Deactivate {name}? This operation is irreversible.',
    description: 'Delete confirmation',
  },
});

export const form = defineMessages({
  addTitle: { id: 'users.form.addTitle', defaultMessage: 'Add user', description: 'Add panel title' },
  editTitle: { id: 'users.form.editTitle', defaultMessage: 'Edit user', description: 'Edit panel title' },
  username: { id: 'users.form.username', defaultMessage: 'Username', description: 'Field: username' },
  displayName: { id: 'users.form.displayName', defaultMessage: 'Display name', description: 'Field: display name' },
  password: { id: 'users.form.password', defaultMessage: 'Password', description: 'Field: password' },
  passwordHint: {
    id: 'users.form.passwordHint',
    defaultMessage: 'Leave empty to keep; at least 8 characters',
    description: 'Edit user password hint',
  },
  group: { id: 'users.form.group', defaultMessage: 'Group', description: 'Field: group' },
  quota: { id: 'users.form.quota', defaultMessage: 'Remaining quota', description: 'Field: quota' },
  addQuota: { id: 'users.form.addQuota', defaultMessage: 'Add quota', description: 'Add quota button' },
  addQuotaAmount: {
    id: 'users.form.addQuotaAmount',
    defaultMessage: 'Quota to add (negative to subtract)',
    description: 'Add quota modal field',
  },
  email: { id: 'users.form.email', defaultMessage: 'Email', description: 'Field: email' },
  remark: { id: 'users.form.remark', defaultMessage: 'Remark', description: 'Field: remark' },
  bindings: {
    id: 'users.form.bindings',
    defaultMessage: 'Third-party bindings (read only)',
    description: 'Bindings section',
  },
  unbound: { id: 'users.form.unbound', defaultMessage: 'not bound', description: 'Binding empty' },
});
