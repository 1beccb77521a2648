/**
 * Types of the playground: its parameters (kept in the browser), the conversation's messages
 * and their states (spec 3 §4: loading → incomplete → complete or error), and the OpenAI
 * chat-completions shapes it sends and reads on POST /pg/chat/completions.
 */

/** The side panel's choices. `group` '' means the user's own group (none is sent). */
export interface PlaygroundParams {
  model: string;
  group: string;
  temperature: number;
  topP: number;
  /** A whole number; 0: not sent. */
  maxTokens: number;
  systemPrompt: string;
  stream: boolean;
}

export type MessageStatus = 'loading' | 'incomplete' | 'complete' | 'error';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * Why an answer failed: the gateway's own message (`{"error":{"message"}}`), the network,
 * a stream that ended without `[DONE]`, or a page left or reloaded while it was being written.
 */
export type MessageError =
  { kind: 'gateway'; message: string; status?: number } | { kind: 'network' } | { kind: 'cut' } | { kind: 'interrupted' };

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  status: MessageStatus;
  /** Token usage of an answer, when the gateway reported it. */
  usage?: Usage;
  error?: MessageError;
  /** The user stopped the answer (it is complete as far as it got). */
  stopped?: boolean;
}

export interface WireMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The body of POST /pg/chat/completions: OpenAI chat completions plus the optional group. */
export interface ChatRequestBody {
  model: string;
  messages: WireMessage[];
  stream: boolean;
  temperature: number;
  top_p?: number;
  max_tokens?: number;
  group?: string;
  stream_options?: { include_usage: boolean };
}
