/** Messages of the rate-limit and model-related settings tabs (spec 2 §3.1, §5.3). */
import { defineMessages } from '../../../i18n/define';

export const modelPanels = defineMessages({
  rateLimit: { id: 'settings.modelPanels.rateLimit', defaultMessage: 'Model request rate limit', description: 'Panel' },
  gemini: { id: 'settings.modelPanels.gemini', defaultMessage: 'Gemini settings', description: 'Panel' },
  claude: { id: 'settings.modelPanels.claude', defaultMessage: 'Claude settings', description: 'Panel' },
  global: { id: 'settings.modelPanels.global', defaultMessage: 'Global settings', description: 'Panel' },
  spending: { id: 'settings.modelPanels.spending', defaultMessage: 'Spending bounds', description: 'Panel' },
});

export const modelHints = defineMessages({
  rateLimitEnabled: {
    id: 'settings.modelHints.rateLimitEnabled',
    defaultMessage: 'Counts each user’s model requests in the window below.',
    description: 'Rate limit switch hint',
  },
  rateLimitCount: {
    id: 'settings.modelHints.rateLimitCount',
    defaultMessage: 'Failed requests count too; 0 means no limit.',
    description: 'Total count hint',
  },
  rateLimitSuccessCount: {
    id: 'settings.modelHints.rateLimitSuccessCount',
    defaultMessage: 'Only successful requests count; at least 1.',
    description: 'Success count hint',
  },
  groupModelRateLimit: {
    id: 'settings.modelHints.groupModelRateLimit',
    defaultMessage:
      'Group → model (or * for the others) → [requests, tokens] each user may use per minute, on every gateway together; 0 means no limit of that kind.',
    description: 'GroupModelRateLimit hint',
  },
  rateLimitGroup: {
    id: 'settings.modelHints.rateLimitGroup',
    defaultMessage:
      "Group → [all requests, successful requests], replacing the two numbers above for the token's group (else the user's); 0 means no limit.",
    description: 'Rate limit by group hint',
  },
  userConcurrency: {
    id: 'settings.modelHints.userConcurrency',
    defaultMessage: 'Requests one user may have in flight on each gateway; 0 means no limit.',
    description: 'User concurrency hint',
  },
  groupConcurrency: {
    id: 'settings.modelHints.groupConcurrency',
    defaultMessage: 'Group → in-flight limit, replacing the one above for users of that group.',
    description: 'Group concurrency hint',
  },
  completionAllowance: {
    id: 'settings.modelHints.completionAllowance',
    defaultMessage: 'Model → completion tokens reserved for a request without max_tokens; "default" for the rest.',
    description: 'Completion allowance hint',
  },
  safetySettings: {
    id: 'settings.modelHints.safetySettings',
    defaultMessage: 'Harm category → threshold; "default" applies to categories not listed.',
    description: 'Gemini safety settings hint',
  },
  versionSettings: {
    id: 'settings.modelHints.versionSettings',
    defaultMessage: 'Model → API version; "default" (v1beta) applies to models not listed.',
    description: 'Gemini version hint',
  },
  imagineModels: {
    id: 'settings.modelHints.imagineModels',
    defaultMessage: 'These models may answer with images.',
    description: 'Gemini image models hint',
  },
  thinkingBudget: {
    id: 'settings.modelHints.thinkingBudget',
    defaultMessage: 'Thinking budget = max tokens × this share, between 0.1 and 1; a budget above 24576 is ignored.',
    description: 'Thinking budget percentage hint',
  },
  thinkingModels: {
    id: 'settings.modelHints.thinkingModels',
    defaultMessage: 'Models whose thinking budget can be set with a "-thinking-N" name suffix (N tokens).',
    description: 'Gemini thinking budget models hint',
  },
  geminiThinkingAdapter: {
    id: 'settings.modelHints.geminiThinkingAdapter',
    defaultMessage: 'Understands the "-thinking" and "-nothinking" model name suffixes.',
    description: 'Gemini thinking adapter hint',
  },
  claudeThinkingAdapter: {
    id: 'settings.modelHints.claudeThinkingAdapter',
    defaultMessage: 'Turns a "-thinking" model name suffix into Claude extended thinking.',
    description: 'Claude thinking adapter hint',
  },
  modelHeaders: {
    id: 'settings.modelHints.modelHeaders',
    defaultMessage: 'Model → extra request headers (name → list of values) sent to Claude.',
    description: 'Claude headers hint',
  },
  defaultMaxTokens: {
    id: 'settings.modelHints.defaultMaxTokens',
    defaultMessage: 'max_tokens used when a request sets none: 8192 by default, 4096 for some older models.',
    description: 'Claude default max tokens hint',
  },
  passThrough: {
    id: 'settings.modelHints.passThrough',
    defaultMessage: 'Sends the request body to the upstream as received, without conversion.',
    description: 'Pass-through hint',
  },
  pingInterval: {
    id: 'settings.modelHints.pingInterval',
    defaultMessage: 'At least 1 second; used only while keep-alive pings are on.',
    description: 'Ping interval hint',
  },
  chats: {
    id: 'settings.modelHints.chats',
    defaultMessage: 'A list of objects, each mapping a chat app’s name to its link; an empty list hides the chat links.',
    description: 'Chats hint',
  },
  useExample: { id: 'settings.modelHints.useExample', defaultMessage: 'Use the example', description: 'Fill example button' },
  example: { id: 'settings.modelHints.example', defaultMessage: 'Example: {example}', description: 'JSON example' },
  range: {
    id: 'settings.modelHints.range',
    defaultMessage: '{name} must be between {min} and {max}',
    description: 'Number outside its range',
  },
});
