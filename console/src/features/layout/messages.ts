import { defineMessages } from '../../i18n/define';

export const nav = defineMessages({
  home: { id: 'layout.nav.home', defaultMessage: 'Home', description: 'Top bar: home' },
  console: { id: 'layout.nav.console', defaultMessage: 'Console', description: 'Top bar: console' },
  pricing: { id: 'layout.nav.pricing', defaultMessage: 'Pricing', description: 'Top bar: pricing' },
  docs: { id: 'layout.nav.docs', defaultMessage: 'Docs', description: 'Top bar: docs link' },
  about: { id: 'layout.nav.about', defaultMessage: 'About', description: 'Top bar: about' },
  login: { id: 'layout.nav.login', defaultMessage: 'Log in', description: 'Top bar: log in' },
  register: { id: 'layout.nav.register', defaultMessage: 'Register', description: 'Top bar: register' },
  logout: { id: 'layout.nav.logout', defaultMessage: 'Log out', description: 'User menu: log out' },
  personal: {
    id: 'layout.nav.personal',
    defaultMessage: 'Personal settings',
    description: 'User menu / sidebar: personal settings',
  },
  themeDark: { id: 'layout.nav.themeDark', defaultMessage: 'Switch to dark mode', description: 'Theme toggle (to dark)' },
  themeLight: { id: 'layout.nav.themeLight', defaultMessage: 'Switch to light mode', description: 'Theme toggle (to light)' },
  language: { id: 'layout.nav.language', defaultMessage: 'Language', description: 'Language menu' },
  menu: { id: 'layout.nav.menu', defaultMessage: 'Menu', description: 'Mobile menu button' },
  selfUse: { id: 'layout.nav.selfUse', defaultMessage: 'Self-use mode', description: 'Badge: self-use mode' },
  demo: { id: 'layout.nav.demo', defaultMessage: 'Demo site', description: 'Badge: demo mode' },
  loggedOut: { id: 'layout.nav.loggedOut', defaultMessage: 'Logged out', description: 'Toast after logout' },
});

export const sidebar = defineMessages({
  sectionChat: { id: 'layout.sidebar.sectionChat', defaultMessage: 'Chat', description: 'Sidebar section: chat' },
  sectionConsole: { id: 'layout.sidebar.sectionConsole', defaultMessage: 'Console', description: 'Sidebar section: console' },
  sectionAdmin: { id: 'layout.sidebar.sectionAdmin', defaultMessage: 'Admin', description: 'Sidebar section: admin' },
  sectionPersonal: { id: 'layout.sidebar.sectionPersonal', defaultMessage: 'Personal', description: 'Sidebar section: personal' },
  playground: { id: 'layout.sidebar.playground', defaultMessage: 'Playground', description: 'Sidebar: playground' },
  dashboard: { id: 'layout.sidebar.dashboard', defaultMessage: 'Dashboard', description: 'Sidebar: data dashboard' },
  tokens: { id: 'layout.sidebar.tokens', defaultMessage: 'API tokens', description: 'Sidebar: tokens' },
  logs: { id: 'layout.sidebar.logs', defaultMessage: 'Usage logs', description: 'Sidebar: usage logs' },
  drawing: { id: 'layout.sidebar.drawing', defaultMessage: 'Drawing logs', description: 'Sidebar: drawing logs' },
  tasks: { id: 'layout.sidebar.tasks', defaultMessage: 'Task logs', description: 'Sidebar: task logs' },
  channels: { id: 'layout.sidebar.channels', defaultMessage: 'Channels', description: 'Sidebar: channels' },
  gateways: { id: 'layout.sidebar.gateways', defaultMessage: 'Gateways', description: 'Sidebar: gateways' },
  redemption: { id: 'layout.sidebar.redemption', defaultMessage: 'Redemption codes', description: 'Sidebar: redemption codes' },
  users: { id: 'layout.sidebar.users', defaultMessage: 'User management', description: 'Sidebar: users' },
  settings: { id: 'layout.sidebar.settings', defaultMessage: 'System settings', description: 'Sidebar: settings' },
  wallet: { id: 'layout.sidebar.wallet', defaultMessage: 'Wallet', description: 'Sidebar: wallet' },
  personal: { id: 'layout.sidebar.personal', defaultMessage: 'Personal settings', description: 'Sidebar: personal settings' },
  collapse: { id: 'layout.sidebar.collapse', defaultMessage: 'Collapse sidebar', description: 'Sidebar collapse button' },
  expand: { id: 'layout.sidebar.expand', defaultMessage: 'Expand sidebar', description: 'Sidebar expand button' },
});

export const footer = defineMessages({
  credits: {
    id: 'layout.footer.credits',
    defaultMessage: '{name} {version} · open-source AI model API gateway',
    description: 'Default footer text',
  },
});

export const pages = defineMessages({
  homeTitle: { id: 'layout.home.title', defaultMessage: 'Welcome to {name}', description: 'Home page title' },
  homeText: {
    id: 'layout.home.text',
    defaultMessage: 'One gateway in front of your AI model providers: tokens, quotas, groups and logs.',
    description: 'Home page text',
  },
  homeConsole: { id: 'layout.home.console', defaultMessage: 'Open the console', description: 'Home page button' },
  forbiddenTitle: { id: 'layout.forbidden.title', defaultMessage: 'No permission', description: 'Role too low title' },
  forbiddenText: {
    id: 'layout.forbidden.text',
    defaultMessage: 'Your account is not allowed to open this page.',
    description: 'Role too low text',
  },
  notFoundTitle: { id: 'layout.notFound.title', defaultMessage: 'The page does not exist', description: 'Not found title' },
  notFoundText: {
    id: 'layout.notFound.text',
    defaultMessage: 'Please check that the address in the browser is correct.',
    description: 'Not found hint',
  },
  backHome: { id: 'layout.notFound.backHome', defaultMessage: 'Back to home', description: 'Not found button' },
});
