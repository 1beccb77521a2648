import { defineMessages } from '../../i18n/define';

export const content = defineMessages({
  aboutEmptyTitle: { id: 'content.about.emptyTitle', defaultMessage: 'About', description: 'About page without content: title' },
  aboutEmptyText: {
    id: 'content.about.emptyText',
    defaultMessage:
      'The operator of this site has not written an About page yet. An administrator can set this text (markdown, HTML or the address of a page) in System settings.',
    description: 'About page without content: explanation',
  },
  openSettings: {
    id: 'content.about.openSettings',
    defaultMessage: 'Open settings',
    description: 'About page without content: admin button',
  },
  frameTitle: {
    id: 'content.frame.title',
    defaultMessage: 'Page of the site operator',
    description: 'Accessible title of the framed page',
  },
  openInNewTab: {
    id: 'content.frame.openInNewTab',
    defaultMessage: 'Open in a new tab',
    description: 'Link above a framed page, for pages that refuse to be framed',
  },
  loadFailed: {
    id: 'content.loadFailed',
    defaultMessage: 'The content could not be loaded.',
    description: 'Error when the About content cannot be read',
  },
});
