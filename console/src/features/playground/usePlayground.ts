/**
 * The playground's state: the parameters and the conversation, both kept in the browser
 * (a reload keeps them), and the one call in flight, which Stop aborts.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { useIntl } from 'react-intl';
import { api } from '../../app/api';
import { useAppDispatch, useAppSelector, useCurrentUser } from '../../app/hooks';
import { readJson, STORAGE_KEY, writeJson } from '../../shared/storage';
import { postChat } from './api';
import { conversationReducer, isGenerating, restoreMessages } from './conversation';
import { params as pm } from './messages';
import { defaultParams, restoreParams } from './params';
import { buildRequestBody } from './request';
import type { ChatMessage, PlaygroundParams } from './types';

let counter = 0;
/** A message id unique in this browser (no crypto.randomUUID: plain-http origins lack it). */
function newId(): string {
  counter += 1;
  return `${Date.now().toString(36)}-${counter.toString(36)}`;
}

export interface Playground {
  params: PlaygroundParams;
  setParams: (patch: Partial<PlaygroundParams>) => void;
  resetParams: () => void;
  messages: ChatMessage[];
  generating: boolean;
  /** Sends a question to `group` (the group in use, which may differ from a stale stored choice). */
  send: (text: string, group: string) => void;
  stop: () => void;
  clear: () => void;
}

export function usePlayground(): Playground {
  const intl = useIntl();
  const defaultPrompt = intl.formatMessage(pm.defaultSystemPrompt);
  const user = useCurrentUser();
  const locale = useAppSelector((s) => s.ui.locale);
  const dispatch = useAppDispatch();
  const [params, setParamsState] = useState(() => restoreParams(readJson(STORAGE_KEY.playgroundParams), defaultPrompt));
  const [messages, act] = useReducer(conversationReducer, undefined, () =>
    restoreMessages(readJson(STORAGE_KEY.playgroundMessages)),
  );
  const call = useRef<AbortController | null>(null);
  const generating = isGenerating(messages);

  useEffect(() => writeJson(STORAGE_KEY.playgroundParams, params), [params]);
  // Kept at each change of state, not at every chunk of a streaming answer.
  const last = messages[messages.length - 1];
  const streaming = last?.status === 'incomplete';
  useEffect(() => {
    if (!streaming) writeJson(STORAGE_KEY.playgroundMessages, messages);
  }, [messages, streaming]);
  // Leaving the page stops the answer being written.
  useEffect(() => () => call.current?.abort(), []);

  const setParams = useCallback((patch: Partial<PlaygroundParams>) => setParamsState((p) => ({ ...p, ...patch })), []);
  const resetParams = useCallback(() => setParamsState(defaultParams(defaultPrompt)), [defaultPrompt]);

  const send = (text: string, group: string) => {
    const content = text.trim();
    if (!user || content === '' || generating) return;
    const question = { id: newId(), role: 'user' as const, content, status: 'complete' as const };
    const answerId = newId();
    const body = buildRequestBody({ ...params, group }, [...messages, question]);
    act({ type: 'sent', question, answerId });
    const controller = new AbortController();
    call.current = controller;
    void postChat(body, {
      userId: user.id,
      locale,
      signal: controller.signal,
      onChunk: (c) => act({ type: 'chunk', id: answerId, content: c }),
      onUsage: (usage) => act({ type: 'usage', id: answerId, usage }),
    }).then((outcome) => {
      if (call.current === controller) call.current = null;
      if (outcome.kind === 'complete') act({ type: 'completed', id: answerId, content: outcome.content, usage: outcome.usage });
      else if (outcome.kind === 'error') act({ type: 'failed', id: answerId, error: outcome.error });
      else act({ type: 'stopped', id: answerId });
      // The balance shown elsewhere (wallet, personal page) has changed.
      dispatch(api.util.invalidateTags(['Self']));
    });
  };

  const stop = () => call.current?.abort();
  const clear = () => {
    call.current?.abort();
    act({ type: 'cleared' });
  };

  return { params, setParams, resetParams, messages, generating, send, stop, clear };
}
