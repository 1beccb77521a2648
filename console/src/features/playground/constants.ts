/** Business constants of the playground (spec 3 §2.6, §5, §9). */

/** POST target on the gateway (same origin as the console when reached through the gateway). */
export const PLAYGROUND_PATH = '/pg/chat/completions';

/** Spec 3 §9 defaults. */
export const DEFAULT_MODEL = 'gpt-4o-mini';
export const DEFAULT_TEMPERATURE = 0;
export const DEFAULT_TOP_P = 1;
export const DEFAULT_MAX_TOKENS = 0;
export const DEFAULT_STREAM = true;
// The default system prompt is a message (`params.defaultSystemPrompt`): in the UI's language.

/** Spec 3 §5: the temperature slider runs from 0.1 to 1 in steps of 0.1. */
export const TEMPERATURE_MIN = 0.1;
export const TEMPERATURE_MAX = 1;
export const TEMPERATURE_STEP = 0.1;

/** top_p: 0 to 1; at 1 (no nucleus cut) it is not sent. */
export const TOP_P_MIN = 0;
export const TOP_P_MAX = 1;
export const TOP_P_STEP = 0.05;

/** Max tokens: a whole number; 0 means "not sent" (the model's own limit). */
export const MAX_TOKENS_MAX = 1_000_000;

/** The SSE event that closes a stream. */
export const DONE_EVENT = '[DONE]';
