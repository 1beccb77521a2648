/**
 * The channel screen's rules as pure functions (spec 2 §4.1, §4.2, §5.4): submit checks,
 * multi-key detection, base URL handling, custom model entry, priority/weight parsing, tag
 * edit and batch preconditions, response-time colours. A check answers null when the input
 * is fine, or the problem to show.
 */
import type { Problem } from '../../shared/validation';
import { CHANNEL_TYPE, PRIORITY_MIN, RESPONSE_TIME_MS, WEIGHT_MIN, XUNFEI_DEFAULT_VERSION } from './constants';
import { rules as m } from './messages';

const problem = (message: Problem['message'], values?: Problem['values']): Problem => ({ message, values });
const blank = (s: string | null | undefined) => !s || s.trim() === '';

/** Multi-key inputs are separated by commas or newlines (spec 2 §9). */
const KEY_SEPARATOR = /[,\n]/;
/** Custom model entries are separated by commas or whitespace (spec 2 §5.4). */
const CUSTOM_MODEL_SEPARATOR = /[,\s]+/;

/** Whether the multi-key view switches on for this key (spec 2 §4.2). */
export function isMultiKeyInput(key: string, type: number, viewDisabled: boolean): boolean {
  if (viewDisabled || type === CHANNEL_TYPE.vertexAi) return false;
  return KEY_SEPARATOR.test(key.trim());
}

/** The keys of an input: trimmed, blanks dropped; a Vertex key (service-account JSON) stays whole. */
export function splitKeys(raw: string, type: number): string[] {
  const text = raw.trim();
  if (text === '') return [];
  if (type === CHANNEL_TYPE.vertexAi || text.startsWith('{') || text.startsWith('[')) return [text];
  return text
    .split(KEY_SEPARATOR)
    .map((k) => k.trim())
    .filter((k) => k !== '');
}

/** A base URL with surrounding spaces and trailing slashes removed. */
export function normalizeBaseUrl(raw: string | null | undefined): string {
  return (raw ?? '').trim().replace(/\/+$/, '');
}

/** A base URL ending in /v1 gets a confirm warning before saving. */
export function baseUrlEndsWithV1(raw: string | null | undefined): boolean {
  return /\/v1$/i.test(normalizeBaseUrl(raw));
}

/** Empty, or a JSON object: what the JSON fields of a channel accept. */
export function isJsonObjectOrEmpty(text: string | null | undefined): boolean {
  if (blank(text)) return true;
  try {
    const v: unknown = JSON.parse(text as string);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** A Vertex region: plain text, or (when it looks like JSON) a JSON object of model → region. */
export function isValidRegion(other: string | null | undefined): boolean {
  const text = (other ?? '').trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return true;
  return isJsonObjectOrEmpty(text);
}

export interface CustomModelsResult {
  /** The list after adding. */
  models: string[];
  added: string[];
  /** Entries already in the list (or repeated in the input), ignored with a notice. */
  duplicates: string[];
}

/** Splits a custom model entry by commas or whitespace and appends the new names. */
export function addCustomModels(input: string, existing: readonly string[]): CustomModelsResult {
  const models = [...existing];
  const added: string[] = [];
  const duplicates: string[] = [];
  for (const name of input.split(CUSTOM_MODEL_SEPARATOR).filter((n) => n !== '')) {
    if (models.includes(name)) {
      if (!duplicates.includes(name)) duplicates.push(name);
    } else {
      models.push(name);
      added.push(name);
    }
  }
  return { models, added, duplicates };
}

/** Appends names not yet in the list (fill related / fill all / picker). */
export function mergeModels(existing: readonly string[], more: readonly string[]): string[] {
  const out = [...existing];
  for (const n of more) if (n && !out.includes(n)) out.push(n);
  return out;
}

/** An integer typed in a field (parsed like parseInt), or null when it is not a number. */
export function parseInteger(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const n = Number.parseInt(value.trim(), 10);
  return Number.isNaN(n) ? null : n;
}

export type Parsed = { value: number; problem: null } | { value: null; problem: Problem };

/** Inline priority edit: an integer of at least -999. */
export function parsePriority(value: unknown): Parsed {
  const n = parseInteger(value);
  if (n === null || n < PRIORITY_MIN) return { value: null, problem: problem(m.priorityInvalid, { min: PRIORITY_MIN }) };
  return { value: n, problem: null };
}

/** Inline weight edit: an integer; a negative weight is floored to 0. */
export function parseWeight(value: unknown): Parsed {
  const n = parseInteger(value);
  if (n === null) return { value: null, problem: problem(m.weightInvalid) };
  return { value: Math.max(WEIGHT_MIN, n), problem: null };
}

/** The channel form's values. */
export interface ChannelFormValues {
  type: number;
  name: string;
  key: string;
  base_url: string;
  other: string;
  openai_organization: string;
  models: string[];
  groups: string[];
  test_model: string;
  model_mapping: string;
  status_code_mapping: string;
  setting: string;
  param_override: string;
  header_override: string;
  tag: string;
  model_prefix: string;
  priority: number | string | null;
  weight: number | string | null;
  auto_ban: boolean;
  max_input_tokens: number | null;
  remark: string;
}

/** The fields that decide where a channel sends its key. */
export type KeyDestinationFields = Pick<ChannelFormValues, 'base_url' | 'header_override' | 'setting'>;

/** A JSON text as a canonical string (object keys sorted), so reformatting is no change; empty and `{}` read alike. */
function canonicalJson(raw: string | null | undefined): string {
  const text = (raw ?? '').trim();
  if (text === '') return '';
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, x]) => [k, sorted(x)]),
          )
        : v;
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) return '';
    return JSON.stringify(sorted(value));
  } catch {
    return text;
  }
}

/** The `proxy` of a channel's extra settings, or ''. */
function proxyOf(setting: string | null | undefined): string {
  try {
    const value: unknown = JSON.parse((setting ?? '').trim() || '{}');
    if (!value || typeof value !== 'object' || Array.isArray(value)) return '';
    const proxy = (value as Record<string, unknown>).proxy;
    if (proxy === undefined || proxy === null) return '';
    return typeof proxy === 'string' ? proxy.trim() : JSON.stringify(proxy);
  } catch {
    return '';
  }
}

/**
 * Whether an edit sends the stored key somewhere new: another base URL, header override or
 * proxy. The server then refuses the save without the key (as it does, to the same rules).
 */
export function keyDestinationChanged(stored: KeyDestinationFields, edited: KeyDestinationFields): boolean {
  return (
    normalizeBaseUrl(stored.base_url) !== normalizeBaseUrl(edited.base_url) ||
    canonicalJson(stored.header_override) !== canonicalJson(edited.header_override) ||
    proxyOf(stored.setting) !== proxyOf(edited.setting)
  );
}

/**
 * The checks of spec 2 §5.4 before a channel is saved; on edits, `stored` (the saved channel)
 * makes a changed base URL, header override or proxy require the key again.
 */
export function validateChannelSubmit(v: ChannelFormValues, isEdit: boolean, stored?: KeyDestinationFields): Problem | null {
  if (!isEdit && (blank(v.name) || blank(v.key))) return problem(m.nameKeyRequired);
  if (isEdit && blank(v.name)) return problem(m.nameKeyRequired);
  if (isEdit && stored && blank(v.key) && keyDestinationChanged(stored, v)) return problem(m.keyRequiredForDestination);
  if (v.models.length === 0) return problem(m.modelsRequired);
  const json: [string, Problem['message']][] = [
    [v.model_mapping, m.modelMappingInvalid],
    [v.status_code_mapping, m.statusCodeMappingInvalid],
    [v.setting, m.settingInvalid],
    [v.param_override, m.paramOverrideInvalid],
    [v.header_override, m.headerOverrideInvalid],
  ];
  for (const [text, message] of json) if (!isJsonObjectOrEmpty(text)) return problem(message);
  if (v.type === CHANNEL_TYPE.vertexAi && !isValidRegion(v.other)) return problem(m.regionInvalid);
  const priority = parsePriority(v.priority ?? 0);
  if (priority.problem) return priority.problem;
  if (parseInteger(v.weight ?? 0) === null || (parseInteger(v.weight ?? 0) as number) < WEIGHT_MIN) {
    return problem(m.weightInvalid);
  }
  return null;
}

/** `other` as saved: Xunfei (18) with an empty value gets v2.1. */
export function effectiveOther(type: number, other: string): string {
  const text = other.trim();
  if (type === CHANNEL_TYPE.xunfei && text === '') return XUNFEI_DEFAULT_VERSION;
  return text;
}

/** The request body of a checked form (models and groups joined by commas). */
export function channelBody(v: ChannelFormValues) {
  return {
    type: v.type,
    name: v.name.trim(),
    key: v.key.trim(),
    base_url: normalizeBaseUrl(v.base_url),
    other: effectiveOther(v.type, v.other ?? ''),
    openai_organization: (v.openai_organization ?? '').trim(),
    models: v.models.join(','),
    group: v.groups.join(','),
    test_model: (v.test_model ?? '').trim(),
    model_mapping: (v.model_mapping ?? '').trim(),
    status_code_mapping: (v.status_code_mapping ?? '').trim(),
    setting: (v.setting ?? '').trim(),
    param_override: (v.param_override ?? '').trim(),
    header_override: (v.header_override ?? '').trim(),
    tag: (v.tag ?? '').trim(),
    model_prefix: (v.model_prefix ?? '').trim(),
    priority: parseInteger(v.priority ?? 0) ?? 0,
    weight: Math.max(WEIGHT_MIN, parseInteger(v.weight ?? 0) ?? 0),
    auto_ban: v.auto_ban ? 1 : 0,
    max_input_tokens: Math.max(0, parseInteger(v.max_input_tokens ?? 0) ?? 0),
    remark: (v.remark ?? '').trim(),
  };
}

/** Fetching models of a new channel needs a key. */
export function validateFetchModels(isEdit: boolean, key: string): Problem | null {
  return !isEdit && blank(key) ? problem(m.keyRequiredForFetch) : null;
}

/** The fetched model list: an array, or an object with a nested `data` array; otherwise null. */
export function fetchedModelList(data: unknown): string[] | null {
  const list = Array.isArray(data)
    ? data
    : data && typeof data === 'object' && Array.isArray((data as { data?: unknown }).data)
      ? (data as { data: unknown[] }).data
      : null;
  if (!list) return null;
  return list
    .map((x) => (typeof x === 'string' ? x : x && typeof x === 'object' && 'id' in x ? String(x.id) : ''))
    .filter((x) => x !== '');
}

/** What the tag dialog starts from and what the user typed. */
export interface TagEditValues {
  new_tag: string;
  models: string[];
  groups: string[];
  model_mapping: string;
  priority: string | number | null;
  weight: string | number | null;
}

export interface TagEditBody {
  tag: string;
  new_tag?: string;
  models?: string;
  groups?: string;
  model_mapping?: string;
  priority?: number;
  weight?: number;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
const isEmptyValue = (v: unknown) => v === null || v === undefined || (typeof v === 'string' && v.trim() === '');

/** Tag-level edit (spec 2 §5.4): only changed fields are sent; invalid input or no change is refused. */
export function tagEditBody(
  tag: string,
  initial: TagEditValues,
  draft: TagEditValues,
): { body: TagEditBody; problem: null } | { body: null; problem: Problem } {
  const body: TagEditBody = { tag };
  if (!isEmptyValue(draft.priority)) {
    const n = typeof draft.priority === 'number' ? draft.priority : Number(String(draft.priority).trim());
    if (!Number.isInteger(n)) return { body: null, problem: problem(m.tagPriorityInvalid) };
    if (String(n) !== String(initial.priority ?? '')) body.priority = n;
  }
  if (!isEmptyValue(draft.weight)) {
    const n = typeof draft.weight === 'number' ? draft.weight : Number(String(draft.weight).trim());
    if (!Number.isInteger(n) || n < WEIGHT_MIN) return { body: null, problem: problem(m.weightInvalid) };
    if (String(n) !== String(initial.weight ?? '')) body.weight = n;
  }
  const mapping = draft.model_mapping.trim();
  if (!isJsonObjectOrEmpty(mapping)) return { body: null, problem: problem(m.modelMappingInvalid) };
  if (mapping !== initial.model_mapping.trim()) body.model_mapping = mapping;
  const newTag = draft.new_tag.trim();
  if (newTag !== '' && newTag !== tag) body.new_tag = newTag;
  if (draft.models.length > 0 && !sameList(draft.models, initial.models)) body.models = draft.models.join(',');
  if (draft.groups.length > 0 && !sameList(draft.groups, initial.groups)) body.groups = draft.groups.join(',');
  if (Object.keys(body).length === 1) return { body: null, problem: problem(m.noChanges) };
  return { body, problem: null };
}

/** Batch actions on the selection need channels selected. */
export function validateSelection(ids: readonly number[]): Problem | null {
  return ids.length === 0 ? problem(m.selectChannels) : null;
}

/** Batch tag: channels selected and a tag given. */
export function validateBatchTag(ids: readonly number[], tag: string): Problem | null {
  if (ids.length === 0) return problem(m.selectChannels);
  if (blank(tag)) return problem(m.tagRequired);
  return null;
}

/** Batch delete: channels selected. */
export function validateBatchDelete(ids: readonly number[]): Problem | null {
  return validateSelection(ids);
}

/** Latency colour of spec 2 §4.1 (antd tag colours): 0 untested; ≤1 s, ≤3 s, ≤5 s, above. */
export type ResponseTimeColor = 'default' | 'green' | 'lime' | 'yellow' | 'red';

export function responseTimeColor(ms: number): ResponseTimeColor {
  if (!ms || ms <= 0) return 'default';
  if (ms <= RESPONSE_TIME_MS.fast) return 'green';
  if (ms <= RESPONSE_TIME_MS.medium) return 'lime';
  if (ms <= RESPONSE_TIME_MS.slow) return 'yellow';
  return 'red';
}

/** The reason and time of an automatic disable, from `other_info` (null when absent or unreadable). */
export function autoDisableInfo(otherInfo: string | null | undefined): { reason: string; time: number } | null {
  if (blank(otherInfo)) return null;
  try {
    const v = JSON.parse(otherInfo as string) as { status_reason?: unknown; status_time?: unknown };
    if (typeof v !== 'object' || v === null) return null;
    return { reason: String(v.status_reason ?? ''), time: Number(v.status_time ?? 0) };
  } catch {
    return null;
  }
}

/** A comma list as an array (blanks dropped). */
export function commaList(raw: string | null | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
