import { api } from '../../app/api';
import type { OptionEntry } from '../../api/types';

export const settingsApi = api.injectEndpoints({
  endpoints: (b) => ({
    getOptions: b.query<Record<string, string>, void>({
      query: () => 'option/',
      transformResponse: (list: OptionEntry[]) => Object.fromEntries((list ?? []).map((o) => [o.key, String(o.value ?? '')])),
      providesTags: ['Option'],
    }),
    updateOption: b.mutation<unknown, OptionEntry>({
      query: (body) => ({ url: 'option/', method: 'PUT', body }),
    }),
    deleteLogs: b.mutation<number, number>({
      query: (targetTimestamp) => ({ url: 'log/', method: 'DELETE', params: { target_timestamp: targetTimestamp } }),
    }),
  }),
});

export const { useGetOptionsQuery, useUpdateOptionMutation, useDeleteLogsMutation } = settingsApi;
