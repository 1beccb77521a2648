/**
 * Default model lists per channel type (spec 2 §4.2): what a new channel of a type starts
 * with and what "fill related models" adds. Types without a list start empty.
 */
import { CHANNEL_TYPE as T, MJ_MODELS, MJ_PLUS_EXTRA_MODELS, SUNO_MODELS } from './constants';

const OPENAI_MODELS = ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'o3-mini', 'text-embedding-3-small'];

const DEFAULTS: Partial<Record<number, readonly string[]>> = {
  [T.openai]: OPENAI_MODELS,
  [T.azure]: OPENAI_MODELS,
  [T.midjourney]: MJ_MODELS,
  [T.midjourneyPlus]: [...MJ_PLUS_EXTRA_MODELS.slice(0, 1), ...MJ_MODELS, ...MJ_PLUS_EXTRA_MODELS.slice(1)],
  [T.suno]: SUNO_MODELS,
  [T.anthropic]: ['claude-sonnet-4-20250514', 'claude-opus-4-20250514', 'claude-3-5-haiku-20241022'],
  [T.gemini]: ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.0-flash'],
  [T.vertexAi]: ['gemini-2.5-pro', 'gemini-2.5-flash', 'claude-sonnet-4@20250514'],
  [T.deepSeek]: ['deepseek-chat', 'deepseek-reasoner'],
  [T.moonshot]: ['moonshot-v1-8k', 'moonshot-v1-32k', 'moonshot-v1-128k', 'kimi-k2-0711-preview'],
  [T.zhipuV4]: ['glm-4-plus', 'glm-4-air', 'glm-4-flash', 'glm-4v'],
  [T.zhipu]: ['chatglm_turbo', 'chatglm_pro', 'chatglm_std', 'chatglm_lite'],
  [T.ali]: ['qwen-turbo', 'qwen-plus', 'qwen-max', 'text-embedding-v1'],
  [T.baidu]: ['ERNIE-4.0-8K', 'ERNIE-3.5-8K', 'ERNIE-Speed-8K', 'Embedding-V1'],
  [T.baiduV2]: ['ernie-4.0-8k-latest', 'ernie-3.5-8k', 'ernie-speed-128k'],
  [T.xunfei]: ['SparkDesk-v2.1', 'SparkDesk-v3.1', 'SparkDesk-v3.5', 'SparkDesk-v4.0'],
  [T.tencent]: ['hunyuan-lite', 'hunyuan-standard', 'hunyuan-pro'],
  [T.mistral]: ['mistral-large-latest', 'mistral-small-latest', 'open-mistral-nemo'],
  [T.xai]: ['grok-3', 'grok-3-mini'],
  [T.cohere]: ['command-r', 'command-r-plus'],
  [T.perplexity]: ['sonar', 'sonar-pro'],
  [T.lingYiWanWu]: ['yi-large', 'yi-medium', 'yi-spark'],
  [T.miniMax]: ['abab6.5s-chat', 'abab6.5g-chat'],
  [T.jina]: ['jina-embeddings-v3', 'jina-reranker-v2-base-multilingual'],
  [T.cloudflare]: ['@cf/meta/llama-3.1-8b-instruct', '@cf/meta/llama-3-8b-instruct'],
  [T.siliconFlow]: ['deepseek-ai/DeepSeek-V3', 'Qwen/Qwen2.5-72B-Instruct'],
  [T.mokaAi]: ['m3e-large', 'm3e-base', 'm3e-small'],
  [T.volcEngine]: ['doubao-pro-32k', 'doubao-lite-32k'],
  [T.aws]: ['claude-3-5-sonnet-20241022', 'claude-3-5-haiku-20241022'],
  [T.sora]: ['sora-2'],
  [T.kling]: ['kling-v1'],
  [T.jimeng]: ['jimeng_high_aes_general_v21_L'],
  [T.vidu]: ['viduq1'],
  [T.codex]: ['gpt-5-codex'],
};

/** The default models of a type (a fresh array; empty for types without a list). */
export function defaultModels(type: number): string[] {
  return [...(DEFAULTS[type] ?? [])];
}

/**
 * The model list after the type changes (spec 2 §4.2): refilled with the new type's defaults
 * when the list was empty or the type changed. A type without defaults keeps what was typed
 * rather than wiping it.
 */
export function modelsAfterTypeChange(models: string[], previousType: number, nextType: number): string[] {
  const defaults = defaultModels(nextType);
  if (models.length > 0 && previousType === nextType) return models;
  if (defaults.length === 0) return models;
  return defaults;
}
