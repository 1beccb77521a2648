/**
 * Token endpoints (spec 2 §7.3): list/search, create (also in batches), update, status, delete;
 * the user's groups. Lists carry masked keys: the whole key is read on demand (`POST token/{id}/key`).
 */
import { useCallback } from 'react';
import { api } from '../../app/api';
import type { Page } from '../../api/types';
import type { Token, TokenInput, TokenKey, TokenQuery, UserGroups } from './types';

const LIST = { type: 'Token' as const, id: 'LIST' };

export const tokensApi = api.injectEndpoints({
  endpoints: (b) => ({
    listTokens: b.query<Page<Token>, TokenQuery>({
      query: ({ keyword, p, pageSize }) =>
        keyword
          ? { url: 'token/search', params: { keyword, p, page_size: pageSize } }
          : { url: 'token/', params: { p, page_size: pageSize } },
      providesTags: (res) => [LIST, ...(res?.items ?? []).map((t) => ({ type: 'Token' as const, id: t.id }))],
    }),
    getToken: b.query<Token, number>({
      query: (id) => `token/${id}`,
      providesTags: (_r, _e, id) => [{ type: 'Token', id }],
    }),
    createTokens: b.mutation<Token[], TokenInput>({
      query: (body) => ({ url: 'token/', method: 'POST', body }),
      invalidatesTags: [LIST],
    }),
    updateToken: b.mutation<Token, TokenInput & { id: number }>({
      query: (body) => ({ url: 'token/', method: 'PUT', body }),
      invalidatesTags: (_r, _e, t) => [LIST, { type: 'Token', id: t.id }],
    }),
    setTokenStatus: b.mutation<Token, { id: number; status: number }>({
      query: (body) => ({ url: 'token/', method: 'PUT', params: { status_only: true }, body }),
      invalidatesTags: (_r, _e, t) => [LIST, { type: 'Token', id: t.id }],
    }),
    /** The whole key of one of the user's tokens; never cached (a mutation, reset once read). */
    readTokenKey: b.mutation<TokenKey, number>({
      query: (id) => ({ url: `token/${id}/key`, method: 'POST' }),
    }),
    deleteToken: b.mutation<unknown, number>({
      query: (id) => ({ url: `token/${id}/`, method: 'DELETE' }),
      invalidatesTags: [LIST],
    }),
    getSelfGroups: b.query<UserGroups, void>({
      query: () => 'user/self/groups',
      providesTags: ['Group'],
    }),
  }),
});

export const {
  useListTokensQuery,
  useGetTokenQuery,
  useCreateTokensMutation,
  useUpdateTokenMutation,
  useSetTokenStatusMutation,
  useReadTokenKeyMutation,
  useDeleteTokenMutation,
  useGetSelfGroupsQuery,
} = tokensApi;

/**
 * Reads the whole keys of tokens (in the order of `ids`) when a copy or show button asks for
 * them; null when a call failed (the API layer already reported it). The answers are dropped
 * from the store as soon as they are read.
 */
export function useTokenKeys(): (ids: readonly number[]) => Promise<string[] | null> {
  const [readKey] = useReadTokenKeyMutation();
  return useCallback(
    async (ids) => {
      const calls = ids.map((id) => readKey(id));
      try {
        return (await Promise.all(calls.map((c) => c.unwrap()))).map((r) => r.key);
      } catch {
        return null;
      } finally {
        for (const c of calls) c.reset();
      }
    },
    [readKey],
  );
}
