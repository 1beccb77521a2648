import { defineMessages } from '../i18n/define';

export const placeholders = defineMessages({
  chat: { id: 'placeholder.chat', defaultMessage: 'Chat', description: 'Name of the chat pages (later release)' },
});
