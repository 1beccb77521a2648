/**
 * Per-type form behaviour of spec 2 §4.2 as data: default base URL, how the base URL is
 * entered, composite key formats, what `other` means, extra notices. Types without a row
 * are plain OpenAI-style forms.
 */
import { CHANNEL_TYPE as T, type ChannelTypeKey } from './constants';

/** How the base URL field behaves. */
export type BaseUrlKind = 'prefix' | 'required' | 'fullUrl' | 'volcEngine';
/** Composite key formats (their placeholders live in messages.ts `keyFormats`). */
export type KeyFormat = 'baidu' | 'xunfei' | 'fastGpt' | 'tencent' | 'aws' | 'vertexJson' | 'baiduV2' | 'zhipu';
/** What the free-text `other` field holds for a type (labels in messages.ts `otherFields`). */
export type OtherField =
  'azureApiVersion' | 'aliPlugin' | 'xunfeiVersion' | 'knowledgeBaseId' | 'cloudflareAccountId' | 'vertexRegion' | 'cozeBotId';
/** Extra notices shown above the form for a type (texts in messages.ts `notices`). */
export type TypeNotice = 'azure' | 'custom' | 'midjourney' | 'suno' | 'dify' | 'siliconFlow' | 'vertex' | 'volcEngine';

export interface TypeForm {
  baseUrl: BaseUrlKind;
  defaultBaseUrl?: string;
  keyFormat?: KeyFormat;
  other?: OtherField;
  /** The OpenAI organization field is shown. */
  organization?: boolean;
  notice?: TypeNotice;
}

const PLAIN: TypeForm = { baseUrl: 'prefix' };

const FORMS: Partial<Record<number, TypeForm>> = {
  [T.openai]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.openai.com', organization: true },
  [T.midjourney]: { baseUrl: 'required', notice: 'midjourney' },
  [T.azure]: { baseUrl: 'required', other: 'azureApiVersion', notice: 'azure' },
  [T.ollama]: { baseUrl: 'prefix', defaultBaseUrl: 'http://localhost:11434' },
  [T.midjourneyPlus]: { baseUrl: 'required', notice: 'midjourney' },
  [T.openaiMax]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.openaimax.com' },
  [T.ohMyGpt]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.ohmygpt.com' },
  [T.custom]: { baseUrl: 'fullUrl', notice: 'custom' },
  [T.ails]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.caipacity.com' },
  [T.aiProxy]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.aiproxy.io' },
  [T.api2gpt]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.api2gpt.com' },
  [T.aigc2d]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.aigc2d.com' },
  [T.anthropic]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.anthropic.com' },
  [T.baidu]: { baseUrl: 'prefix', defaultBaseUrl: 'https://aip.baidubce.com', keyFormat: 'baidu' },
  [T.zhipu]: { baseUrl: 'prefix', defaultBaseUrl: 'https://open.bigmodel.cn', keyFormat: 'zhipu' },
  [T.ali]: { baseUrl: 'prefix', defaultBaseUrl: 'https://dashscope.aliyuncs.com', other: 'aliPlugin' },
  [T.xunfei]: { baseUrl: 'prefix', keyFormat: 'xunfei', other: 'xunfeiVersion' },
  [T.ai360]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.360.cn' },
  [T.openRouter]: { baseUrl: 'prefix', defaultBaseUrl: 'https://openrouter.ai/api' },
  [T.aiProxyLibrary]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.aiproxy.io', other: 'knowledgeBaseId' },
  [T.fastGpt]: { baseUrl: 'prefix', defaultBaseUrl: 'https://fastgpt.run/api/openapi', keyFormat: 'fastGpt' },
  [T.tencent]: { baseUrl: 'prefix', defaultBaseUrl: 'https://hunyuan.tencentcloudapi.com', keyFormat: 'tencent' },
  [T.gemini]: { baseUrl: 'prefix', defaultBaseUrl: 'https://generativelanguage.googleapis.com' },
  [T.moonshot]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.moonshot.cn' },
  [T.zhipuV4]: { baseUrl: 'prefix', defaultBaseUrl: 'https://open.bigmodel.cn' },
  [T.perplexity]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.perplexity.ai' },
  [T.lingYiWanWu]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.lingyiwanwu.com' },
  [T.aws]: { baseUrl: 'prefix', keyFormat: 'aws' },
  [T.cohere]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.cohere.ai' },
  [T.miniMax]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.minimax.chat' },
  [T.suno]: { baseUrl: 'required', notice: 'suno' },
  [T.dify]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.dify.ai', notice: 'dify' },
  [T.jina]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.jina.ai' },
  [T.cloudflare]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.cloudflare.com', other: 'cloudflareAccountId' },
  [T.siliconFlow]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.siliconflow.cn', notice: 'siliconFlow' },
  [T.vertexAi]: { baseUrl: 'prefix', keyFormat: 'vertexJson', other: 'vertexRegion', notice: 'vertex' },
  [T.mistral]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.mistral.ai' },
  [T.deepSeek]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.deepseek.com' },
  [T.mokaAi]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.moka.ai' },
  [T.volcEngine]: { baseUrl: 'volcEngine', defaultBaseUrl: 'https://ark.cn-beijing.volces.com', notice: 'volcEngine' },
  [T.baiduV2]: { baseUrl: 'prefix', defaultBaseUrl: 'https://qianfan.baidubce.com', keyFormat: 'baiduV2' },
  [T.xai]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.x.ai' },
  [T.coze]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.coze.cn', other: 'cozeBotId' },
  [T.kling]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.klingai.com' },
  [T.jimeng]: { baseUrl: 'prefix', defaultBaseUrl: 'https://visual.volcengineapi.com' },
  [T.vidu]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.vidu.cn' },
  [T.submodel]: { baseUrl: 'prefix', defaultBaseUrl: 'https://llm.submodel.ai' },
  [T.doubaoVideo]: { baseUrl: 'prefix', defaultBaseUrl: 'https://ark.cn-beijing.volces.com' },
  [T.sora]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.openai.com' },
  [T.replicate]: { baseUrl: 'prefix', defaultBaseUrl: 'https://api.replicate.com' },
  [T.codex]: { baseUrl: 'prefix', defaultBaseUrl: 'https://chatgpt.com' },
  [T.advancedCustom]: { baseUrl: 'required' },
};

/** The form behaviour of a type. */
export function typeForm(type: number): TypeForm {
  return FORMS[type] ?? PLAIN;
}

/** Colours of the type tags in the table, by family (purely visual). */
const TYPE_COLORS: Partial<Record<ChannelTypeKey, string>> = {
  openai: 'green',
  azure: 'blue',
  anthropic: 'orange',
  gemini: 'geekblue',
  vertexAi: 'geekblue',
  deepSeek: 'cyan',
  custom: 'purple',
  advancedCustom: 'purple',
};

export function typeColor(key: ChannelTypeKey | undefined): string | undefined {
  return key ? TYPE_COLORS[key] : undefined;
}
