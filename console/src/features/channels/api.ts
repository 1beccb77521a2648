/** The channel endpoints of spec 2 §7.2 (injected into the one API slice). */
import { api } from '../../app/api';
import type { Page } from '../../api/types';
import type {
  Channel,
  ChannelInput,
  CheckSummary,
  CreateChannelRequest,
  FetchModelsRequest,
  ModelItem,
  TagEdit,
  TestResult,
} from './types';

/** Appended to the name of a copied channel. */
export const COPY_SUFFIX = '_copy';

export interface ChannelQuery {
  keyword: string;
  model: string;
  group: string;
  p: number;
  pageSize: number;
  idSort: boolean;
  tagMode: boolean;
}

/** Any filter set: the search endpoint answers every match at once. */
export const isSearch = (q: Pick<ChannelQuery, 'keyword' | 'model' | 'group'>) =>
  q.keyword.trim() !== '' || q.model.trim() !== '' || q.group.trim() !== '';

const LIST = { type: 'Channel' as const, id: 'LIST' };

export const channelsApi = api.injectEndpoints({
  endpoints: (b) => ({
    listChannels: b.query<Page<Channel>, ChannelQuery>({
      query: (q) =>
        isSearch(q)
          ? {
              url: 'channel/search',
              params: {
                keyword: q.keyword.trim(),
                model: q.model.trim(),
                group: q.group.trim(),
                id_sort: q.idSort,
                tag_mode: q.tagMode,
              },
            }
          : { url: 'channel/', params: { p: q.p, page_size: q.pageSize, id_sort: q.idSort, tag_mode: q.tagMode } },
      providesTags: (res) => [LIST, ...(res?.items ?? []).map((c) => ({ type: 'Channel' as const, id: c.id }))],
    }),
    getChannel: b.query<Channel, number>({
      query: (id) => `channel/${id}`,
      providesTags: (_r, _e, id) => [{ type: 'Channel', id }],
    }),
    createChannel: b.mutation<number[], CreateChannelRequest>({
      query: (body) => ({ url: 'channel/', method: 'POST', body }),
      invalidatesTags: [LIST, 'Models'],
    }),
    /** Full or partial update (status, priority, weight). */
    updateChannel: b.mutation<Channel, ChannelInput & { id: number }>({
      query: (body) => ({ url: 'channel/', method: 'PUT', body }),
      invalidatesTags: (_r, _e, c) => [{ type: 'Channel', id: c.id }, LIST, 'Models'],
    }),
    copyChannel: b.mutation<{ id: number }, number>({
      query: (id) => ({ url: `channel/copy/${id}`, method: 'POST', params: { suffix: COPY_SUFFIX, reset_balance: true } }),
      invalidatesTags: [LIST, 'Models'],
    }),
    deleteChannel: b.mutation<unknown, number>({
      query: (id) => ({ url: `channel/${id}/`, method: 'DELETE' }),
      invalidatesTags: [LIST, 'Models'],
    }),
    deleteDisabledChannels: b.mutation<number, void>({
      query: () => ({ url: 'channel/disabled', method: 'DELETE' }),
      invalidatesTags: [LIST, 'Models'],
    }),
    batchDeleteChannels: b.mutation<number, number[]>({
      query: (ids) => ({ url: 'channel/batch', method: 'POST', body: { ids } }),
      invalidatesTags: [LIST, 'Models'],
    }),
    fixAbilities: b.mutation<number, void>({
      query: () => ({ url: 'channel/fix', method: 'POST' }),
      invalidatesTags: [LIST],
    }),
    batchTagChannels: b.mutation<number, { ids: number[]; tag: string }>({
      query: (body) => ({ url: 'channel/batch/tag', method: 'POST', body }),
      invalidatesTags: [LIST],
    }),
    editTag: b.mutation<number, TagEdit>({
      query: (body) => ({ url: 'channel/tag', method: 'PUT', body }),
      invalidatesTags: [LIST, 'Models'],
    }),
    setTagStatus: b.mutation<number, { tag: string; enabled: boolean }>({
      query: ({ tag, enabled }) => ({
        url: enabled ? 'channel/tag/enabled' : 'channel/tag/disabled',
        method: 'POST',
        body: { tag },
      }),
      invalidatesTags: [LIST],
    }),
    testChannel: b.mutation<TestResult, { id: number; model?: string }>({
      query: ({ id, model }) => ({ url: `channel/test/${id}`, params: model ? { model } : undefined }),
      invalidatesTags: (_r, _e, a) => [{ type: 'Channel', id: a.id }, LIST],
    }),
    testAllChannels: b.mutation<CheckSummary, void>({
      query: () => 'channel/test',
      invalidatesTags: [LIST],
    }),
    updateChannelBalance: b.mutation<number, number>({
      query: (id) => `channel/update_balance/${id}/`,
      invalidatesTags: (_r, _e, id) => [{ type: 'Channel', id }, LIST],
    }),
    updateAllBalances: b.mutation<CheckSummary, void>({
      query: () => 'channel/update_balance',
      invalidatesTags: [LIST],
    }),
    /** Models of a saved channel, from its upstream. */
    fetchSavedModels: b.mutation<unknown, number>({
      query: (id) => `channel/fetch_models/${id}`,
    }),
    /** Models of an unsaved channel (needs a key). */
    fetchModels: b.mutation<unknown, FetchModelsRequest>({
      query: (body) => ({ url: 'channel/fetch_models', method: 'POST', body }),
    }),
    enabledModels: b.query<string[], void>({
      query: () => 'channel/models_enabled',
      providesTags: ['Models'],
    }),
    allModels: b.query<ModelItem[], void>({
      query: () => 'channel/models',
      providesTags: ['Models'],
    }),
  }),
});

export const {
  useListChannelsQuery,
  useGetChannelQuery,
  useCreateChannelMutation,
  useUpdateChannelMutation,
  useCopyChannelMutation,
  useDeleteChannelMutation,
  useDeleteDisabledChannelsMutation,
  useBatchDeleteChannelsMutation,
  useFixAbilitiesMutation,
  useBatchTagChannelsMutation,
  useEditTagMutation,
  useSetTagStatusMutation,
  useTestChannelMutation,
  useTestAllChannelsMutation,
  useUpdateChannelBalanceMutation,
  useUpdateAllBalancesMutation,
  useFetchSavedModelsMutation,
  useFetchModelsMutation,
  useEnabledModelsQuery,
  useLazyAllModelsQuery,
  useLazyEnabledModelsQuery,
} = channelsApi;
