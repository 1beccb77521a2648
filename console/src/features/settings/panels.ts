/** The settings panels of spec 1 §2 as data: which option keys each edits and how. */
import type { MessageDescriptor } from 'react-intl';
import type { Problem } from '../../shared/validation';
import { validatePayment, validateRebate } from '../../shared/validation';
import type { OptionKey } from './fieldLabels';
import { panels as p } from './messages';
import { modelHints } from './model/messages';

export type FieldKind = 'switch' | 'text' | 'secret' | 'number' | 'textarea' | 'json' | 'granularity' | 'whitelist';

export interface FieldDef {
  key: OptionKey;
  kind: FieldKind;
  min?: number;
  max?: number;
  step?: number;
  /** Trailing slashes are stripped before saving (spec 1 §5). */
  stripSlash?: boolean;
  /** Turning this switch off asks for confirmation first (spec 1 §4). */
  confirmOff?: boolean;
  /** Save checks `min`–`max` (otherwise only `min`; the input clamps to `max`). */
  checkRange?: boolean;
  /** A line of help under the input. */
  hint?: MessageDescriptor;
  /** The input is disabled unless this switch of the same panel is on (spec 2 §5.3). */
  enabledBy?: OptionKey;
  /** A JSON value to show as an example; a button copies it into the input. */
  example?: string;
}

export type Values = Record<string, string>;

export interface PanelDef {
  id: string;
  title: MessageDescriptor;
  fields: FieldDef[];
  /** Panel rules beyond the per-field ones; sees the values after slash stripping. */
  validate?: (edited: Values, saved: Values) => Problem | null;
  extra?: 'oidcDiscovery' | 'logCleanup' | 'updateCheck' | 'resetModelRatios';
}

export const sw = (key: OptionKey, more: Partial<FieldDef> = {}): FieldDef => ({ key, kind: 'switch', ...more });
const text = (key: OptionKey, more: Partial<FieldDef> = {}): FieldDef => ({ key, kind: 'text', ...more });
const secret = (key: OptionKey): FieldDef => ({ key, kind: 'secret' });
export const num = (key: OptionKey, min?: number, more: Partial<FieldDef> = {}): FieldDef => ({
  key,
  kind: 'number',
  min,
  ...more,
});
export const json = (key: OptionKey, more: Partial<FieldDef> = {}): FieldDef => ({ key, kind: 'json', ...more });
const area = (key: OptionKey): FieldDef => ({ key, kind: 'textarea' });

const chatsHint = modelHints.chats;
/** A chat link template: the chat app fills in the user's key and this server's address. */
const CHATS_EXAMPLE = JSON.stringify([
  { 'ChatGPT Next Web': 'https://app.nextchat.dev/#/?settings={"key":"{key}","url":"{address}"}' },
]);

export const SYSTEM_PANELS: PanelDef[] = [
  { id: 'general', title: p.general, fields: [text('ServerAddress', { stripSlash: true })] },
  { id: 'worker', title: p.worker, fields: [text('WorkerUrl', { stripSlash: true }), secret('WorkerValidKey')] },
  {
    id: 'payment',
    title: p.payment,
    fields: [
      text('PayAddress', { stripSlash: true }),
      text('EpayId'),
      secret('EpayKey'),
      num('Price', 0, { step: 0.01 }),
      num('MinTopUp', 1),
      text('CustomCallbackAddress', { stripSlash: true }),
      { key: 'TopupGroupRatio', kind: 'json' },
    ],
    validate: (edited, saved) =>
      validatePayment({
        serverAddress: saved.ServerAddress ?? '',
        topupGroupRatio: edited.TopupGroupRatio ?? '',
        topupGroupRatioChanged: (edited.TopupGroupRatio ?? '') !== (saved.TopupGroupRatio ?? ''),
      }),
  },
  {
    id: 'login',
    title: p.login,
    fields: [
      sw('PasswordLoginEnabled', { confirmOff: true }),
      sw('PasswordRegisterEnabled'),
      sw('EmailVerificationEnabled'),
      sw('RegisterEnabled'),
      sw('TurnstileCheckEnabled'),
      sw('GitHubOAuthEnabled'),
      sw('WeChatAuthEnabled'),
      sw('TelegramOAuthEnabled'),
      sw('LinuxDOOAuthEnabled'),
      sw('oidc.enabled'),
    ],
  },
  {
    id: 'whitelist',
    title: p.whitelist,
    fields: [
      sw('EmailDomainRestrictionEnabled'),
      sw('EmailAliasRestrictionEnabled'),
      { key: 'EmailDomainWhitelist', kind: 'whitelist' },
    ],
  },
  {
    id: 'smtp',
    title: p.smtp,
    fields: [
      text('SMTPServer'),
      num('SMTPPort', 0),
      text('SMTPAccount'),
      text('SMTPFrom'),
      secret('SMTPToken'),
      sw('SMTPSSLEnabled'),
    ],
  },
  {
    id: 'oidc',
    title: p.oidc,
    fields: [
      text('oidc.well_known'),
      text('oidc.client_id'),
      secret('oidc.client_secret'),
      text('oidc.authorization_endpoint'),
      text('oidc.token_endpoint'),
      text('oidc.user_info_endpoint'),
    ],
    extra: 'oidcDiscovery',
  },
  { id: 'github', title: p.github, fields: [text('GitHubClientId'), secret('GitHubClientSecret')] },
  { id: 'linuxdo', title: p.linuxdo, fields: [text('LinuxDOClientId'), secret('LinuxDOClientSecret')] },
  {
    id: 'wechat',
    title: p.wechat,
    fields: [text('WeChatServerAddress', { stripSlash: true }), secret('WeChatServerToken'), text('WeChatAccountQRCodeImageURL')],
  },
  { id: 'telegram', title: p.telegram, fields: [text('TelegramBotName'), secret('TelegramBotToken')] },
  { id: 'turnstile', title: p.turnstile, fields: [text('TurnstileSiteKey'), secret('TurnstileSecretKey')] },
];

export const OPERATION_PANELS: PanelDef[] = [
  {
    id: 'operation',
    title: p.operation,
    fields: [
      text('TopUpLink'),
      text('general_setting.docs_link'),
      num('QuotaPerUnit', 0),
      num('RetryTimes', 0),
      sw('DisplayInCurrencyEnabled'),
      sw('DisplayTokenStatEnabled'),
      sw('DefaultCollapseSidebar'),
      sw('DemoSiteEnabled'),
      sw('SelfUseModeEnabled'),
    ],
  },
  {
    id: 'chats',
    title: p.chats,
    fields: [json('Chats', { hint: chatsHint, example: CHATS_EXAMPLE })],
  },
  {
    id: 'drawing',
    title: p.drawing,
    fields: [
      sw('DrawingEnabled'),
      sw('TaskEnabled'),
      sw('MjNotifyEnabled'),
      sw('MjAccountFilterEnabled'),
      sw('MjForwardUrlEnabled'),
      sw('MjModeClearEnabled'),
      sw('MjActionCheckSuccessEnabled'),
    ],
  },
  {
    id: 'sensitive',
    title: p.sensitive,
    fields: [
      sw('CheckSensitiveEnabled'),
      sw('CheckSensitiveOnPromptEnabled'),
      sw('CheckSensitiveOnCompletionEnabled'),
      sw('StopOnSensitiveEnabled'),
      num('StreamCacheQueueLength', 0),
      area('SensitiveWords'),
    ],
  },
  { id: 'log', title: p.log, fields: [sw('LogConsumeEnabled'), sw('LogChatContentEnabled')], extra: 'logCleanup' },
  {
    id: 'dashboard',
    title: p.dashboard,
    fields: [sw('DataExportEnabled'), { key: 'DataExportDefaultTime', kind: 'granularity' }],
  },
  {
    id: 'monitor',
    title: p.monitor,
    fields: [
      num('ChannelDisableThreshold', 0),
      num('QuotaRemindThreshold', 0),
      sw('AutomaticDisableChannelEnabled'),
      sw('AutomaticEnableChannelEnabled'),
      text('AutomaticDisableStatusCodes'),
      area('AutomaticDisableKeywords'),
      sw('monitor_setting.auto_test_channel_enabled'),
      num('monitor_setting.auto_test_channel_minutes', 0.01, { step: 1 }),
      sw('monitor_setting.auto_update_balance_enabled'),
      num('monitor_setting.auto_update_balance_minutes', 0.01, { step: 1 }),
    ],
  },
  { id: 'checkIn', title: p.checkIn, fields: [sw('CheckInEnabled'), num('CheckInQuota', 0), num('CheckInMaxQuota', 0)] },
  {
    id: 'quota',
    title: p.quota,
    fields: [num('QuotaForNewUser', 0), num('PreConsumedQuota', 0), num('QuotaForInviter', 0), num('QuotaForInvitee', 0)],
  },
  {
    id: 'rebate',
    title: p.rebate,
    fields: [sw('RebateEnabled'), num('RebatePercentage', 0, { max: 100, step: 0.1 })],
    validate: (edited) => validateRebate(edited.RebateEnabled === 'true', Number(edited.RebatePercentage ?? 0)),
  },
];

export const OTHER_PANELS: PanelDef[] = [
  {
    id: 'personalization',
    title: p.personalization,
    fields: [area('Notice'), text('SystemName'), text('Logo'), area('HomePageContent'), area('About'), area('Footer')],
    extra: 'updateCheck',
  },
];
