/**
 * The playground's parameters as pure rules: the defaults (spec 3 §9), what a stored copy is
 * read back as, the temperature the slider shows and the request sends, and the group choices
 * (the user's own group first, spec 3 §6).
 */
import {
  DEFAULT_MAX_TOKENS,
  DEFAULT_MODEL,
  DEFAULT_STREAM,
  DEFAULT_TEMPERATURE,
  DEFAULT_TOP_P,
  MAX_TOKENS_MAX,
  TEMPERATURE_MAX,
  TEMPERATURE_MIN,
  TOP_P_MAX,
  TOP_P_MIN,
} from './constants';
import type { PlaygroundParams } from './types';

/** The defaults, with the default system prompt in the UI's language. */
export function defaultParams(systemPrompt: string): PlaygroundParams {
  return {
    model: DEFAULT_MODEL,
    group: '',
    temperature: DEFAULT_TEMPERATURE,
    topP: DEFAULT_TOP_P,
    maxTokens: DEFAULT_MAX_TOKENS,
    systemPrompt,
    stream: DEFAULT_STREAM,
  };
}

const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, n));
const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * The temperature on the slider's scale (0.1 to 1, one decimal): the stored default 0 shows,
 * and is sent, as the slider's minimum.
 */
export function shownTemperature(t: number): number {
  return clamp(round(Number.isFinite(t) ? t : DEFAULT_TEMPERATURE, 1), TEMPERATURE_MIN, TEMPERATURE_MAX);
}

/** Max tokens as typed: a whole number from 0 (not sent) up; anything else reads as 0. */
export function parseMaxTokens(v: unknown): number {
  const n = typeof v === 'string' ? Number(v.trim()) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return 0;
  return Math.min(Math.floor(n), MAX_TOKENS_MAX);
}

/** The parameters kept in the browser, each field checked; a missing or broken one takes its default. */
export function restoreParams(stored: unknown, defaultSystemPrompt: string): PlaygroundParams {
  const s = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
  const str = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);
  const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
  const model = str(s.model, DEFAULT_MODEL).trim();
  return {
    model: model || DEFAULT_MODEL,
    group: str(s.group, '').trim(),
    temperature: clamp(num(s.temperature, DEFAULT_TEMPERATURE), 0, TEMPERATURE_MAX),
    topP: clamp(num(s.topP, DEFAULT_TOP_P), TOP_P_MIN, TOP_P_MAX),
    maxTokens: parseMaxTokens(s.maxTokens),
    systemPrompt: str(s.systemPrompt, defaultSystemPrompt),
    stream: typeof s.stream === 'boolean' ? s.stream : DEFAULT_STREAM,
  };
}

export interface GroupChoice {
  name: string;
  desc: string;
  ratio: number;
}

/** The groups the user may choose: their own group first, then the others by name. */
export function groupChoices(groups: Record<string, { desc: string; ratio: number }>, userGroup: string): GroupChoice[] {
  return Object.entries(groups)
    .map(([name, g]) => ({ name, desc: g.desc, ratio: g.ratio }))
    .sort((a, b) => (a.name === userGroup ? -1 : b.name === userGroup ? 1 : a.name.localeCompare(b.name)));
}

/**
 * The group in use: the chosen one while the user may still use it, else the user's own
 * (also while the list is loading or empty).
 */
export function effectiveGroup(chosen: string, choices: GroupChoice[], userGroup: string): string {
  if (choices.length === 0) return chosen || userGroup;
  if (chosen && choices.some((c) => c.name === chosen)) return chosen;
  if (choices.some((c) => c.name === userGroup)) return userGroup;
  return choices[0].name;
}

/** The model choices: the models the user may call, plus the chosen one when it is not among them. */
export function modelChoices(models: readonly string[], chosen: string): string[] {
  const list = [...new Set(models)];
  return chosen && !list.includes(chosen) ? [chosen, ...list] : list;
}
