/** Channel types, statuses and the business constants of spec 2 §4.1, §4.2, §5.4 and §9 (named, never bare numbers). */

/** Upstream kinds the control plane accepts (new-api numbering; 0 and 28–30, 32 are unused). */
export const CHANNEL_TYPE = {
  openai: 1,
  midjourney: 2,
  azure: 3,
  ollama: 4,
  midjourneyPlus: 5,
  openaiMax: 6,
  ohMyGpt: 7,
  custom: 8,
  ails: 9,
  aiProxy: 10,
  palm: 11,
  api2gpt: 12,
  aigc2d: 13,
  anthropic: 14,
  baidu: 15,
  zhipu: 16,
  ali: 17,
  xunfei: 18,
  ai360: 19,
  openRouter: 20,
  aiProxyLibrary: 21,
  fastGpt: 22,
  tencent: 23,
  gemini: 24,
  moonshot: 25,
  zhipuV4: 26,
  perplexity: 27,
  lingYiWanWu: 31,
  aws: 33,
  cohere: 34,
  miniMax: 35,
  suno: 36,
  dify: 37,
  jina: 38,
  cloudflare: 39,
  siliconFlow: 40,
  vertexAi: 41,
  mistral: 42,
  deepSeek: 43,
  mokaAi: 44,
  volcEngine: 45,
  baiduV2: 46,
  xinference: 47,
  xai: 48,
  coze: 49,
  kling: 50,
  jimeng: 51,
  vidu: 52,
  submodel: 53,
  doubaoVideo: 54,
  sora: 55,
  replicate: 56,
  codex: 57,
  advancedCustom: 58,
} as const;
export type ChannelTypeKey = keyof typeof CHANNEL_TYPE;
export type ChannelType = (typeof CHANNEL_TYPE)[ChannelTypeKey];

/** Every known type, in id order. */
export const CHANNEL_TYPE_KEYS = (Object.keys(CHANNEL_TYPE) as ChannelTypeKey[]).sort(
  (a, b) => CHANNEL_TYPE[a] - CHANNEL_TYPE[b],
);

/** The key of a type id, if the control plane knows it. */
export function channelTypeKey(type: number): ChannelTypeKey | undefined {
  return CHANNEL_TYPE_KEYS.find((k) => CHANNEL_TYPE[k] === type);
}

export const CHANNEL_STATUS = { enabled: 1, disabled: 2, autoDisabled: 3 } as const;
export type ChannelStatus = (typeof CHANNEL_STATUS)[keyof typeof CHANNEL_STATUS];

/** auto_ban values. */
export const AUTO_BAN = { on: 1, off: 0 } as const;

/** Response-time colour thresholds in milliseconds (spec 2 §4.1, §9). */
export const RESPONSE_TIME_MS = { fast: 1000, medium: 3000, slow: 5000 } as const;
export const MS_PER_SECOND = 1000;

export const PRIORITY_MIN = -999;
export const WEIGHT_MIN = 0;
export const DEFAULT_PRIORITY = 0;
export const DEFAULT_WEIGHT = 0;
export const DEFAULT_GROUP = 'default';

/** Type 18 (Xunfei) with an empty `other` defaults to this model version. */
export const XUNFEI_DEFAULT_VERSION = 'v2.1';
/** Azure's API version when `other` is left empty (the server's default). */
export const AZURE_DEFAULT_API_VERSION = '2025-04-01-preview';
/** Vertex AI's region when `other` names none. */
export const VERTEX_DEFAULT_REGION = 'global';
/** VolcEngine's two Ark endpoints (the base URL is chosen from these). */
export const VOLCENGINE_BASE_URLS = ['https://ark.cn-beijing.volces.com', 'https://ark.ap-southeast.bytepluses.com'] as const;

/** How a multi-key input is saved (POST /api/channel/ `mode`). */
export const CREATE_MODE = { single: 'single', batch: 'batch', multiToSingle: 'multi_to_single' } as const;
export type CreateMode = (typeof CREATE_MODE)[keyof typeof CREATE_MODE];
/** How a multi-key channel picks its key. */
export const MULTI_KEY_MODE = { random: 'random', polling: 'polling' } as const;
export type MultiKeyMode = (typeof MULTI_KEY_MODE)[keyof typeof MULTI_KEY_MODE];

/** Model names added by the default lists of the Midjourney and Suno types (spec 2 §4.2). */
export const MJ_MODELS = [
  'mj_imagine',
  'mj_variation',
  'mj_reroll',
  'mj_blend',
  'mj_upscale',
  'mj_describe',
  'mj_uploads',
] as const;
export const MJ_PLUS_EXTRA_MODELS = [
  'swap_face',
  'mj_zoom',
  'mj_shorten',
  'mj_modal',
  'mj_inpaint',
  'mj_custom_zoom',
  'mj_high_variation',
  'mj_low_variation',
  'mj_pan',
  'mj_video',
  'mj_edits',
] as const;
export const SUNO_MODELS = ['suno_music', 'suno_lyrics'] as const;

/** The model a channel test falls back to when the channel names none. */
export const FALLBACK_TEST_MODEL = 'gpt-4o-mini';
