/**
 * What a chat-link page (/chat/:id, /chat2link) opens: the entry's template filled with the
 * whole key of the user's first enabled token (read with POST /api/token/{id}/key, never the
 * masked list key) and the server address.
 */
import { useEffect, useState } from 'react';
import type { MessageDescriptor } from 'react-intl';
import { useCurrentUser } from '../../app/hooks';
import { useListTokensQuery, useTokenKeys } from '../tokens/api';
import { chat as m } from './messages';
import { chatUrl, firstEnabledToken } from './rules';
import { useChatLinks } from './useChatLinks';

export type ChatTarget =
  | { state: 'loading' }
  | { state: 'signedOut' }
  | { state: 'noToken' }
  | { state: 'error'; message: MessageDescriptor }
  | { state: 'ready'; name: string; url: string };

/** The first page of the user's tokens is enough to find an enabled one. */
const TOKEN_QUERY = { keyword: '', p: 1, pageSize: 100 };

export function useChatTarget(index: number | null): ChatTarget {
  const user = useCurrentUser();
  const { chats, address, loading } = useChatLinks();
  const entry = chats && index !== null ? chats[index] : undefined;
  const tokens = useListTokensQuery(TOKEN_QUERY, { skip: !user || !entry, refetchOnMountOrArgChange: true });
  const token = tokens.data ? firstEnabledToken(tokens.data.items) : undefined;
  const tokenId = token?.id;
  const readKeys = useTokenKeys();
  const [key, setKey] = useState<{ id: number; key: string | null } | null>(null);

  useEffect(() => {
    if (tokenId === undefined) return;
    let live = true;
    void readKeys([tokenId]).then((keys) => {
      if (live) setKey({ id: tokenId, key: keys?.[0] ?? null });
    });
    return () => {
      live = false;
    };
  }, [tokenId, readKeys]);

  if (loading) return { state: 'loading' };
  if (chats === null) return { state: 'error', message: m.configError };
  if (!entry) return { state: 'error', message: m.notConfigured };
  if (!user) return { state: 'signedOut' };
  if (tokens.isError) return { state: 'error', message: m.keyFailed };
  if (!tokens.data || tokens.isFetching) return { state: 'loading' };
  if (!token) return { state: 'noToken' };
  if (!key || key.id !== token.id) return { state: 'loading' };
  if (key.key === null) return { state: 'error', message: m.keyFailed };
  const url = chatUrl(entry, key.key, address, window.location.origin);
  return url ? { state: 'ready', name: entry.name, url } : { state: 'error', message: m.configError };
}
