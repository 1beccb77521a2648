import { defineMessages } from '../../i18n/define';

export const chat = defineMessages({
  loading: { id: 'chat.loading', defaultMessage: 'Loading, please wait…', description: 'Chat page while the link is prepared' },
  redirecting: {
    id: 'chat.redirecting',
    defaultMessage: 'Opening the chat page…',
    description: '/chat2link while it leaves for the chat link',
  },
  noToken: {
    id: 'chat.noToken',
    defaultMessage: 'No enabled token is available. Please check that one of your tokens is enabled!',
    description: 'Chat-link pages without an enabled token (then the user goes to /token)',
  },
  configError: {
    id: 'chat.configError',
    defaultMessage: 'Chat link config error, contact the administrator',
    description: 'The Chats option is malformed, or a link is not a web address',
  },
  notConfigured: {
    id: 'chat.notConfigured',
    defaultMessage: 'Please contact the administrator to configure chat links',
    description: 'The Chats option has no (such) entry',
  },
  signIn: {
    id: 'chat.signIn',
    defaultMessage: 'Sign in to chat with one of your tokens',
    description: 'Chat page for a signed-out visitor',
  },
  signInButton: { id: 'chat.signInButton', defaultMessage: 'Sign in', description: 'Sign-in button on the chat page' },
  frameTitle: { id: 'chat.frameTitle', defaultMessage: 'Chat: {name}', description: 'Accessible title of the chat frame' },
  openNewTab: {
    id: 'chat.openNewTab',
    defaultMessage: 'Open in a new tab',
    description: 'Chat page: open the framed chat page in a tab of its own',
  },
  keyFailed: {
    id: 'chat.keyFailed',
    defaultMessage: 'The token key could not be read',
    description: 'Reading the whole key failed',
  },
});

export const tokenChat = defineMessages({
  chat: { id: 'chat.token.chat', defaultMessage: 'Chat', description: 'Token row: open the first chat link with this token' },
  more: {
    id: 'chat.token.more',
    defaultMessage: 'More chat links',
    description: 'Token row: the menu of every chat link',
  },
});
