/** Redemption code endpoints (spec 2 §7.4): list/search, create, update, status, delete, batch disable, delete disabled, count and delete by name. */
import { api } from '../../app/api';
import type { Page } from '../../api/types';
import type { CodeInput, Redemption, RedemptionQuery } from './types';

const LIST = { type: 'Redemption' as const, id: 'LIST' };

export const redemptionsApi = api.injectEndpoints({
  endpoints: (b) => ({
    listRedemptions: b.query<Page<Redemption>, RedemptionQuery>({
      query: ({ keyword, p, pageSize }) =>
        keyword
          ? { url: 'redemption/search', params: { keyword, p, page_size: pageSize } }
          : { url: 'redemption/', params: { p, page_size: pageSize } },
      providesTags: (res) => [LIST, ...(res?.items ?? []).map((r) => ({ type: 'Redemption' as const, id: r.id }))],
    }),
    createRedemptions: b.mutation<string[], CodeInput>({
      query: (body) => ({ url: 'redemption/', method: 'POST', body }),
      invalidatesTags: [LIST],
    }),
    updateRedemption: b.mutation<Redemption, CodeInput & { id: number }>({
      query: (body) => ({ url: 'redemption/', method: 'PUT', body }),
      invalidatesTags: (_r, _e, c) => [LIST, { type: 'Redemption', id: c.id }],
    }),
    setRedemptionStatus: b.mutation<Redemption, { id: number; status: number }>({
      query: (body) => ({ url: 'redemption/', method: 'PUT', params: { status_only: true }, body }),
      invalidatesTags: (_r, _e, c) => [LIST, { type: 'Redemption', id: c.id }],
    }),
    deleteRedemption: b.mutation<unknown, number>({
      query: (id) => ({ url: `redemption/${id}/`, method: 'DELETE' }),
      invalidatesTags: [LIST],
    }),
    batchDisableRedemptions: b.mutation<number, number[]>({
      query: (ids) => ({ url: 'redemption/batch-disable', method: 'PUT', body: { ids } }),
      invalidatesTags: [LIST],
    }),
    deleteDisabledRedemptions: b.mutation<number, void>({
      query: () => ({ url: 'redemption/delete-disabled', method: 'DELETE' }),
      invalidatesTags: [LIST],
    }),
    countRedemptionsByName: b.query<number, string>({
      query: (name) => ({ url: 'redemption/count-by-name', params: { name } }),
      providesTags: [LIST],
    }),
    deleteRedemptionsByName: b.mutation<number, string>({
      query: (name) => ({ url: 'redemption/delete-by-name', method: 'DELETE', params: { name } }),
      invalidatesTags: [LIST],
    }),
  }),
});

export const {
  useListRedemptionsQuery,
  useCreateRedemptionsMutation,
  useUpdateRedemptionMutation,
  useSetRedemptionStatusMutation,
  useDeleteRedemptionMutation,
  useBatchDisableRedemptionsMutation,
  useDeleteDisabledRedemptionsMutation,
  useLazyCountRedemptionsByNameQuery,
  useDeleteRedemptionsByNameMutation,
} = redemptionsApi;
