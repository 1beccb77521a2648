import { defineMessages } from '../../i18n/define';

export const login = defineMessages({
  title: { id: 'auth.login.title', defaultMessage: 'Log in', description: 'Login page title' },
  username: { id: 'auth.login.username', defaultMessage: 'Username or email', description: 'Login username field' },
  password: { id: 'auth.login.password', defaultMessage: 'Password', description: 'Login password field' },
  submit: { id: 'auth.login.submit', defaultMessage: 'Log in', description: 'Login button' },
  success: { id: 'auth.login.success', defaultMessage: 'Logged in', description: 'Login success toast' },
  noAccount: { id: 'auth.login.noAccount', defaultMessage: 'No account? Register', description: 'Link to register' },
  forgot: { id: 'auth.login.forgot', defaultMessage: 'Forgot password? Reset it', description: 'Link to reset' },
  or: { id: 'auth.login.or', defaultMessage: 'or', description: 'Divider before third-party sign-in' },
  github: { id: 'auth.login.github', defaultMessage: 'Sign in with GitHub', description: 'GitHub button' },
  oidc: { id: 'auth.login.oidc', defaultMessage: 'Sign in with OIDC', description: 'OIDC button' },
  linuxdo: { id: 'auth.login.linuxdo', defaultMessage: 'Sign in with LinuxDO', description: 'LinuxDO button' },
  wechat: { id: 'auth.login.wechat', defaultMessage: 'Sign in with WeChat', description: 'WeChat button' },
  wechatHint: {
    id: 'auth.login.wechatHint',
    defaultMessage: 'Scan the QR code, follow the official account and send "验证码" to get a code (valid for 3 minutes).',
    description: 'WeChat modal hint',
  },
  wechatCode: { id: 'auth.login.wechatCode', defaultMessage: 'Verification code', description: 'WeChat code field' },
  telegram: { id: 'auth.login.telegram', defaultMessage: 'Sign in with Telegram', description: 'Telegram widget heading' },
  passwordLoginDisabled: {
    id: 'auth.login.passwordLoginDisabled',
    defaultMessage: 'Password login is disabled by the administrator.',
    description: 'Password login disabled notice',
  },
});

export const register = defineMessages({
  title: { id: 'auth.register.title', defaultMessage: 'Register', description: 'Register page title' },
  username: { id: 'auth.register.username', defaultMessage: 'Username', description: 'Register username field' },
  password: {
    id: 'auth.register.password',
    defaultMessage: 'Password (8 to 20 characters)',
    description: 'Register password placeholder',
  },
  password2: { id: 'auth.register.password2', defaultMessage: 'Confirm password', description: 'Register confirm field' },
  email: { id: 'auth.register.email', defaultMessage: 'Email', description: 'Register email field' },
  code: { id: 'auth.register.code', defaultMessage: 'Verification code', description: 'Register code field' },
  getCode: { id: 'auth.register.getCode', defaultMessage: 'Get code', description: 'Send verification code button' },
  resend: { id: 'auth.register.resend', defaultMessage: 'Resend ({n})', description: 'Cooldown text on code button' },
  codeSent: {
    id: 'auth.register.codeSent',
    defaultMessage: 'Verification code sent, check your mailbox',
    description: 'Code sent toast',
  },
  submit: { id: 'auth.register.submit', defaultMessage: 'Register', description: 'Register button' },
  success: { id: 'auth.register.success', defaultMessage: 'Registered, please log in', description: 'Register success toast' },
  haveAccount: {
    id: 'auth.register.haveAccount',
    defaultMessage: 'Already have an account? Log in',
    description: 'Link to login',
  },
  disabled: {
    id: 'auth.register.disabled',
    defaultMessage: 'Registration is disabled by the administrator.',
    description: 'Registration disabled notice',
  },
});

export const reset = defineMessages({
  title: { id: 'auth.reset.title', defaultMessage: 'Reset password', description: 'Reset request title' },
  email: { id: 'auth.reset.email', defaultMessage: 'Email', description: 'Reset email field' },
  submit: { id: 'auth.reset.submit', defaultMessage: 'Send reset email', description: 'Reset request button' },
  retry: { id: 'auth.reset.retry', defaultMessage: 'Retry ({n})', description: 'Reset cooldown text' },
  sent: {
    id: 'auth.reset.sent',
    defaultMessage: 'Reset email sent, check your mailbox',
    description: 'Reset request success',
  },
  confirmTitle: { id: 'auth.reset.confirmTitle', defaultMessage: 'Confirm password reset', description: 'Reset confirm title' },
  confirmSubmit: { id: 'auth.reset.confirmSubmit', defaultMessage: 'Confirm reset', description: 'Reset confirm button' },
  newPassword: {
    id: 'auth.reset.newPassword',
    defaultMessage: 'Your new password (copied to the clipboard):',
    description: 'New password label',
  },
  missingLink: {
    id: 'auth.reset.missingLink',
    defaultMessage: 'The reset link is incomplete: it needs an email and a token.',
    description: 'Reset confirm without query',
  },
  backToLogin: { id: 'auth.reset.backToLogin', defaultMessage: 'Back to login', description: 'Link to login' },
});

export const oauth = defineMessages({
  working: { id: 'auth.oauth.working', defaultMessage: 'Finishing sign-in…', description: 'OAuth callback progress' },
  failed: {
    id: 'auth.oauth.failed',
    defaultMessage: 'Operation failed, redirecting to the login page…',
    description: 'OAuth failure',
  },
  failedSignedIn: {
    id: 'auth.oauth.failedSignedIn',
    defaultMessage: 'Operation failed, returning to personal settings…',
    description: 'OAuth failure while signed in (a binding)',
  },
  noCode: {
    id: 'auth.oauth.noCode',
    defaultMessage: 'The provider sent no authorization code',
    description: 'OAuth callback opened without a code',
  },
  unexpected: {
    id: 'auth.oauth.unexpected',
    defaultMessage: 'The server sent an unexpected reply',
    description: 'OAuth reply neither a binding nor a user',
  },
  bound: { id: 'auth.oauth.bound', defaultMessage: 'Account bound', description: 'OAuth bind success' },
});
