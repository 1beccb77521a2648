/**
 * Reading a record's `other` JSON string (spec 3 §3) into typed fields. Unknown keys are
 * ignored and a field of the wrong type is left out, so a malformed record never breaks the
 * table.
 */

/** What the gateway records about a call (every field optional). */
export interface LogOther {
  /** Milliseconds to the first response byte/token. */
  frt?: number;
  modelRatio?: number;
  completionRatio?: number;
  groupRatio?: number;
  userGroupRatio?: number;
  /** USD per call; -1 (or absent) when priced by tokens. */
  modelPrice?: number;
  cacheTokens?: number;
  cacheRatio?: number;
  cacheCreationTokens?: number;
  cacheCreationRatio?: number;
  isModelMapped?: boolean;
  upstreamModelName?: string;
  /** The relay endpoint called (chat, responses, messages, …). */
  requestPath?: string;
  /** The conversion that answered, when the client's dialect and the channel's protocol differ. */
  conversion?: { client: string; provider: string };
  /** Admins only: channel ids in the order they were tried. */
  useChannel?: number[];
  localCountTokens?: boolean;
  clientDisconnected?: boolean;
  errorCode?: string;
  reasoningEffort?: string;
  audioInput?: number;
  audioOutput?: number;
  textInput?: number;
  textOutput?: number;
  systemPrompt?: string;
  context?: string;
  inputContent?: string;
  outputContent?: string;
}

type Json = Record<string, unknown>;

const num = (o: Json, k: string) => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? (o[k] as number) : undefined);
const str = (o: Json, k: string) => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
const bool = (o: Json, k: string) => (typeof o[k] === 'boolean' ? (o[k] as boolean) : undefined);
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Context may be recorded as text or as a list of messages: shown as text either way. */
function text(o: Json, k: string): string | undefined {
  const v = o[k];
  if (typeof v === 'string') return v;
  if (v !== undefined && v !== null) return JSON.stringify(v);
  return undefined;
}

function channelsTried(o: Json): number[] | undefined {
  const info = o.admin_info;
  if (!isObject(info) || !Array.isArray(info.use_channel)) return undefined;
  const ids = info.use_channel.filter((x): x is number => typeof x === 'number');
  return ids.length > 0 ? ids : undefined;
}

function conversion(o: Json): LogOther['conversion'] {
  const c = o.conversion;
  if (!isObject(c) || typeof c.client !== 'string' || typeof c.provider !== 'string') return undefined;
  return { client: c.client, provider: c.provider };
}

/** Drops the keys whose value is undefined (so tests can compare with plain objects). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function parseOther(raw: string): LogOther {
  let o: unknown;
  try {
    o = JSON.parse(raw);
  } catch {
    return {};
  }
  if (!isObject(o)) return {};
  return defined({
    frt: num(o, 'frt'),
    modelRatio: num(o, 'model_ratio'),
    completionRatio: num(o, 'completion_ratio'),
    groupRatio: num(o, 'group_ratio'),
    userGroupRatio: num(o, 'user_group_ratio'),
    modelPrice: num(o, 'model_price'),
    cacheTokens: num(o, 'cache_tokens'),
    cacheRatio: num(o, 'cache_ratio'),
    cacheCreationTokens: num(o, 'cache_creation_tokens'),
    cacheCreationRatio: num(o, 'cache_creation_ratio'),
    isModelMapped: bool(o, 'is_model_mapped'),
    upstreamModelName: str(o, 'upstream_model_name'),
    requestPath: str(o, 'request_path'),
    conversion: conversion(o),
    useChannel: channelsTried(o),
    localCountTokens: bool(o, 'local_count_tokens'),
    clientDisconnected: bool(o, 'client_disconnected'),
    errorCode: str(o, 'error_code'),
    reasoningEffort: str(o, 'reasoning_effort'),
    audioInput: num(o, 'audio_input'),
    audioOutput: num(o, 'audio_output'),
    textInput: num(o, 'text_input'),
    textOutput: num(o, 'text_output'),
    systemPrompt: text(o, 'system_prompt'),
    context: text(o, 'context'),
    inputContent: text(o, 'input_content'),
    outputContent: text(o, 'output_content'),
  });
}

/** Priced per call when the record carries a non-negative model price. */
export function isFixedPrice(o: LogOther): boolean {
  return o.modelPrice !== undefined && o.modelPrice >= 0;
}

/** The upstream model when a mapping changed it, else undefined. */
export function mappedModel(o: LogOther, requested: string): string | undefined {
  return o.isModelMapped && o.upstreamModelName && o.upstreamModelName !== requested ? o.upstreamModelName : undefined;
}

/** How many further channels were tried after the first (admins only: users get no list). */
export function retryCount(o: LogOther): number {
  return Math.max(0, (o.useChannel?.length ?? 0) - 1);
}
