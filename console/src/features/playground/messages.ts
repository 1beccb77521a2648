import { defineMessages } from '../../i18n/define';

export const page = defineMessages({
  title: { id: 'playground.title', defaultMessage: 'Playground', description: 'Playground chat card title' },
  params: { id: 'playground.params', defaultMessage: 'Parameters', description: 'Side panel title / phone button' },
  clear: { id: 'playground.clear', defaultMessage: 'Clear context', description: 'Empties the conversation' },
  cleared: { id: 'playground.cleared', defaultMessage: 'Context cleared', description: 'Toast after clearing' },
  emptyTitle: {
    id: 'playground.empty',
    defaultMessage: 'Ask the model something to start a conversation',
    description: 'Empty chat area',
  },
  emptyHint: {
    id: 'playground.emptyHint',
    defaultMessage: 'Calls are charged to your balance and show in the usage log as "playground".',
    description: 'Empty chat area: billing hint',
  },
});

export const params = defineMessages({
  group: { id: 'playground.params.group', defaultMessage: 'Group', description: 'Side panel: group' },
  groupRatio: { id: 'playground.params.groupRatio', defaultMessage: '{ratio}x', description: 'Group ratio tag' },
  noGroups: {
    id: 'playground.params.noGroups',
    defaultMessage: 'Your own group',
    description: 'Group picker when the user has no groups to choose from',
  },
  model: { id: 'playground.params.model', defaultMessage: 'Model', description: 'Side panel: model' },
  temperature: { id: 'playground.params.temperature', defaultMessage: 'Temperature', description: 'Side panel: temperature' },
  topP: { id: 'playground.params.topP', defaultMessage: 'Top P', description: 'Side panel: top_p' },
  topPHint: {
    id: 'playground.params.topPHint',
    defaultMessage: 'At 1 it is not sent.',
    description: 'Side panel: top_p help',
  },
  maxTokens: { id: 'playground.params.maxTokens', defaultMessage: 'Max tokens', description: 'Side panel: max tokens' },
  maxTokensHint: {
    id: 'playground.params.maxTokensHint',
    defaultMessage: '0: no limit is sent (the model decides).',
    description: 'Side panel: max tokens help',
  },
  systemPrompt: {
    id: 'playground.params.systemPrompt',
    defaultMessage: 'System prompt',
    description: 'Side panel: system prompt',
  },
  systemPromptPlaceholder: {
    id: 'playground.params.systemPromptPlaceholder',
    defaultMessage: 'Instructions the model follows for the whole conversation (optional)',
    description: 'Side panel: system prompt placeholder',
  },
  defaultSystemPrompt: {
    id: 'playground.params.defaultSystemPrompt',
    defaultMessage:
      'You are a helpful assistant. Answer clearly and concisely, and use Markdown with fenced code blocks for code.',
    description: 'The system prompt a new playground starts with',
  },
  stream: { id: 'playground.params.stream', defaultMessage: 'Stream the answer', description: 'Side panel: stream switch' },
  reset: { id: 'playground.params.reset', defaultMessage: 'Reset parameters', description: 'Back to the default parameters' },
});

export const chat = defineMessages({
  placeholder: {
    id: 'playground.chat.placeholder',
    defaultMessage: 'Type a message. Enter sends, Shift+Enter starts a new line.',
    description: 'Composer placeholder',
  },
  input: { id: 'playground.chat.input', defaultMessage: 'Message', description: 'Composer accessible name' },
  send: { id: 'playground.chat.send', defaultMessage: 'Send', description: 'Send button' },
  stop: { id: 'playground.chat.stop', defaultMessage: 'Stop', description: 'Stops the answer being written' },
  you: { id: 'playground.chat.you', defaultMessage: 'You', description: 'Author of a question' },
  assistant: { id: 'playground.chat.assistant', defaultMessage: 'Assistant', description: 'Author of an answer' },
  thinking: { id: 'playground.chat.thinking', defaultMessage: 'Waiting for the answer…', description: 'Answer still loading' },
  writing: { id: 'playground.chat.writing', defaultMessage: 'Writing…', description: 'Answer arriving (stream)' },
  stopped: { id: 'playground.chat.stopped', defaultMessage: 'Stopped', description: 'Tag: the user stopped the answer' },
  usage: {
    id: 'playground.chat.usage',
    defaultMessage: 'Tokens: prompt {prompt} · completion {completion} · total {total}',
    description: 'Token usage under an answer',
  },
  copy: { id: 'playground.chat.copy', defaultMessage: 'Copy answer', description: 'Copies an answer' },
  failed: { id: 'playground.chat.failed', defaultMessage: 'The answer failed', description: 'Error title of an answer' },
  errorStatus: {
    id: 'playground.chat.errorStatus',
    defaultMessage: 'The gateway answered HTTP {status}',
    description: 'Error without a message from the gateway',
  },
  errorNetwork: {
    id: 'playground.chat.errorNetwork',
    defaultMessage: 'The gateway could not be reached',
    description: 'Network failure',
  },
  errorCut: {
    id: 'playground.chat.errorCut',
    defaultMessage: 'The stream ended before the answer was complete',
    description: 'Stream closed without [DONE]',
  },
  errorInterrupted: {
    id: 'playground.chat.errorInterrupted',
    defaultMessage: 'The page was left while this answer was being written',
    description: 'Restored answer that was still in flight',
  },
});
