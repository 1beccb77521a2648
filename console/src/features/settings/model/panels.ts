/** The rate-limit and model-related tabs as panel data (spec 2 §3.1, §5.3, §9). */
import { json, num, sw, type PanelDef } from '../panels';
import { modelHints as h, modelPanels as p } from './messages';

/** Thinking budget share of max tokens (spec 2 §5.3). */
export const THINKING_BUDGET_SHARE = { min: 0.1, max: 1, step: 0.1 } as const;
/** Stream keep-alive ping interval, seconds (spec 2 §5.3). */
export const MIN_PING_INTERVAL_SECONDS = 1;
/** Rate-limit minimums: window and total count may be 0 (0 = unlimited), success count ≥ 1. */
export const RATE_LIMIT_MIN = { durationMinutes: 0, count: 0, successCount: 1 } as const;

const EXAMPLES = {
  safety: JSON.stringify({ default: 'OFF', HARM_CATEGORY_CIVIC_INTEGRITY: 'BLOCK_NONE' }),
  versions: JSON.stringify({ default: 'v1beta', 'gemini-1.0-pro': 'v1' }),
  imagine: JSON.stringify(['gemini-2.0-flash-exp-image-generation']),
  thinking: JSON.stringify(['gemini-2.5-flash', 'gemini-2.5-pro']),
  headers: JSON.stringify({ 'claude-3-7-sonnet-20250219': { 'anthropic-beta': ['output-128k-2025-02-19'] } }),
  maxTokens: JSON.stringify({ default: 8192, 'claude-3-haiku-20240307': 4096, 'claude-3-opus-20240229': 4096 }),
};

export const RATE_LIMIT_PANELS: PanelDef[] = [
  {
    id: 'rateLimit',
    title: p.rateLimit,
    fields: [
      sw('ModelRequestRateLimitEnabled', { hint: h.rateLimitEnabled }),
      num('ModelRequestRateLimitDurationMinutes', RATE_LIMIT_MIN.durationMinutes),
      num('ModelRequestRateLimitCount', RATE_LIMIT_MIN.count, { hint: h.rateLimitCount }),
      num('ModelRequestRateLimitSuccessCount', RATE_LIMIT_MIN.successCount, { hint: h.rateLimitSuccessCount }),
      json('ModelRequestRateLimitGroup', { hint: h.rateLimitGroup, example: JSON.stringify({ vip: [0, 2000] }) }),
      json('GroupModelRateLimit', {
        hint: h.groupModelRateLimit,
        example: JSON.stringify({ default: { 'gpt-4o': [60, 100000], '*': [120, 0] } }),
      }),
    ],
  },
  {
    id: 'spending',
    title: p.spending,
    fields: [
      num('UserConcurrencyLimit', 0, { hint: h.userConcurrency }),
      json('GroupConcurrencyLimit', { hint: h.groupConcurrency, example: JSON.stringify({ vip: 128 }) }),
      json('CompletionAllowance', { hint: h.completionAllowance, example: JSON.stringify({ default: 4096 }) }),
    ],
  },
];

const share = {
  min: THINKING_BUDGET_SHARE.min,
  max: THINKING_BUDGET_SHARE.max,
  step: THINKING_BUDGET_SHARE.step,
  checkRange: true,
};

export const MODEL_PANELS: PanelDef[] = [
  {
    id: 'gemini',
    title: p.gemini,
    fields: [
      json('gemini.safety_settings', { hint: h.safetySettings, example: EXAMPLES.safety }),
      json('gemini.version_settings', { hint: h.versionSettings, example: EXAMPLES.versions }),
      json('gemini.supported_imagine_models', { hint: h.imagineModels, example: EXAMPLES.imagine }),
      sw('gemini.thinking_adapter_enabled', { hint: h.geminiThinkingAdapter }),
      num('gemini.thinking_adapter_budget_tokens_percentage', share.min, { ...share, hint: h.thinkingBudget }),
      json('gemini.models_supported_thinking_budget', { hint: h.thinkingModels, example: EXAMPLES.thinking }),
    ],
  },
  {
    id: 'claude',
    title: p.claude,
    fields: [
      json('claude.model_headers_settings', { hint: h.modelHeaders, example: EXAMPLES.headers }),
      json('claude.default_max_tokens', { hint: h.defaultMaxTokens, example: EXAMPLES.maxTokens }),
      sw('claude.thinking_adapter_enabled', { hint: h.claudeThinkingAdapter }),
      num('claude.thinking_adapter_budget_tokens_percentage', share.min, { ...share, hint: h.thinkingBudget }),
    ],
  },
  {
    id: 'global',
    title: p.global,
    fields: [
      sw('global.pass_through_request_enabled', { hint: h.passThrough }),
      sw('global.hide_upstream_error_enabled'),
      sw('global.block_browser_extension_enabled'),
      sw('general_setting.ping_interval_enabled'),
      num('general_setting.ping_interval_seconds', MIN_PING_INTERVAL_SECONDS, {
        hint: h.pingInterval,
        enabledBy: 'general_setting.ping_interval_enabled',
      }),
    ],
  },
];
