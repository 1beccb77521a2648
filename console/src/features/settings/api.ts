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
    /** Models enabled channels serve with neither a price nor a ratio (spec 2 §2.1). */
    getUnsetModels: b.query<string[], void>({
      query: () => 'models/unset',
      transformResponse: (list: string[] | null) => list ?? [],
      providesTags: ['Models', 'Option'],
    }),
    /** Puts the price and ratio options back to the built-in table (spec 2 §7.1). */
    resetModelRatios: b.mutation<unknown, void>({
      query: () => ({ url: 'option/rest_model_ratio', method: 'POST' }),
      invalidatesTags: ['Option', 'Pricing', 'Models'],
    }),
  }),
});

export const {
  useGetOptionsQuery,
  useUpdateOptionMutation,
  useDeleteLogsMutation,
  useGetUnsetModelsQuery,
  useResetModelRatiosMutation,
} = settingsApi;
