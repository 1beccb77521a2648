/** The configured chat links and the server address, from the public status. */
import { useMemo } from 'react';
import { useStatus } from '../status/useStatus';
import { parseChats, serverAddressOf, type ChatLink } from './rules';

export interface ChatLinks {
  /** The entries of `Chats`; null when the option is malformed. */
  chats: ChatLink[] | null;
  /** Where clients reach this gateway: the ServerAddress option, else this page's origin. */
  address: string;
  /** The status is still loading and no cached copy says anything yet. */
  loading: boolean;
}

export function useChatLinks(): ChatLinks {
  const { status, isLoading } = useStatus();
  const raw = status.chats;
  const serverAddress = status.server_address;
  return useMemo(
    () => ({
      chats: parseChats(raw),
      address: serverAddressOf(serverAddress, window.location.origin),
      loading: isLoading && raw === undefined,
    }),
    [raw, serverAddress, isLoading],
  );
}
