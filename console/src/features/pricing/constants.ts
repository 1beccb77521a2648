/** Billing types, vendors and endpoint types of the pricing screen (spec 3 §3, §4). */

/** quota_type of a pricing model: 0 per token (ratios), 1 a fixed price per call. */
export const QUOTA_TYPE = { perToken: 0, perCall: 1 } as const;

/** The group a signed-out visitor is priced in. */
export const DEFAULT_GROUP = 'default';

/** Prices per token are shown for this many tokens. */
export const TOKENS_PER_PRICE = 1_000_000;

/** Selected model names are copied joined by this. */
export const COPY_SEPARATOR = ',';

/**
 * Who makes a model, read from its name: /api/pricing carries no vendor, so the vendor filter
 * matches well-known name patterns (first match wins). Vendor names are proper nouns.
 */
export const VENDOR_PATTERNS: readonly { vendor: string; pattern: RegExp }[] = [
  {
    vendor: 'OpenAI',
    pattern:
      /^(gpt|chatgpt|o\d|dall-e|text-embedding-(ada|3)|whisper|tts-|davinci|babbage|omni-moderation|text-moderation|codex|sora)/,
  },
  { vendor: 'Anthropic', pattern: /claude/ },
  { vendor: 'Google', pattern: /^(gemini|gemma|imagen|veo|learnlm)|text-embedding-00\d/ },
  { vendor: 'DeepSeek', pattern: /deepseek/ },
  { vendor: 'Alibaba', pattern: /^(qwen|qwq|qvq)|qwen/ },
  { vendor: 'Zhipu', pattern: /^(glm|chatglm|cogview|cogvideo)/ },
  { vendor: 'Moonshot', pattern: /^(moonshot|kimi)/ },
  { vendor: 'xAI', pattern: /^grok/ },
  { vendor: 'Mistral', pattern: /^(mistral|mixtral|codestral|pixtral|ministral|magistral|devstral)/ },
  { vendor: 'Meta', pattern: /llama/ },
  { vendor: 'MiniMax', pattern: /^(minimax|abab)/ },
  { vendor: 'ByteDance', pattern: /^(doubao|seed)/ },
  { vendor: 'Baidu', pattern: /^ernie/ },
  { vendor: 'Tencent', pattern: /^hunyuan/ },
  { vendor: 'Cohere', pattern: /^(command|embed-(english|multilingual)|rerank-(english|multilingual|v))/ },
  { vendor: 'Midjourney', pattern: /^(mj_|midjourney)/ },
];

/** The vendor of a model no pattern matches. */
export const OTHER_VENDOR = '';

/** What kind of endpoint a model is called through (read from its name, like the vendor). */
export const ENDPOINT_TYPE = {
  chat: 'chat',
  embeddings: 'embeddings',
  rerank: 'rerank',
  image: 'image',
  audio: 'audio',
  moderation: 'moderation',
} as const;
export type EndpointType = (typeof ENDPOINT_TYPE)[keyof typeof ENDPOINT_TYPE];

/** Name patterns of the non-chat endpoint types, tried in order; anything else is chat. */
export const ENDPOINT_PATTERNS: readonly { type: EndpointType; pattern: RegExp }[] = [
  { type: ENDPOINT_TYPE.embeddings, pattern: /embed/ },
  { type: ENDPOINT_TYPE.rerank, pattern: /rerank/ },
  { type: ENDPOINT_TYPE.moderation, pattern: /moderation/ },
  { type: ENDPOINT_TYPE.audio, pattern: /^(whisper|tts-)|transcribe|-tts\b|-tts-/ },
  {
    type: ENDPOINT_TYPE.image,
    pattern: /^(dall-e|gpt-image|imagen|flux|stable-diffusion|sd-|sdxl|cogview|mj_|midjourney|kolors)|-image\b|-image-/,
  },
];
