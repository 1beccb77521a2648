/** The channel endpoints of spec 2 §7.2 (injected into the one API slice). */
import { api } from '../../app/api';
import type { Page } from '../../api/types';
import type {
  Channel,
  ChannelInput,
  CheckSummary,
  CreateChannelRequest,
  FetchModelsRequest,
  KeysView,
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

/** What the key endpoint can change on a multi-key channel (`get_key_status` only reads). */
export type KeyAction = 'enable_key' | 'disable_key' | 'enable_all_keys' | 'delete_disabled_keys';

export interface KeyActionArgs {
  channelId: number;
  action: KeyAction;
  /** The key, for `enable_key` and `disable_key`. */
  keyIndex?: number;
}

const MANAGE_KEYS = 'channel/multi_key/manage';

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
    /** Tests a channel: with its test model or `model`, with its first enabled key or key `keyIndex`. */
    testChannel: b.mutation<TestResult, { id: number; model?: string; keyIndex?: number }>({
      query: ({ id, model, keyIndex }) => {
        const params = { ...(model ? { model } : {}), ...(keyIndex !== undefined ? { key_index: keyIndex } : {}) };
        return { url: `channel/test/${id}`, params: Object.keys(params).length > 0 ? params : undefined };
      },
      // A test may disable or enable the channel or the key it used (its key list refetches too).
      invalidatesTags: (_r, _e, a) => [{ type: 'Channel', id: a.id }, LIST],
    }),
    /** The keys of a multi-key channel; refetched whenever the channel changes. */
    channelKeys: b.query<KeysView, number>({
      query: (channelId) => ({ url: MANAGE_KEYS, method: 'POST', body: { channel_id: channelId, action: 'get_key_status' } }),
      providesTags: (_r, _e, id) => [{ type: 'Channel', id }],
    }),
    /** Enables or disables keys, or deletes the disabled ones (the rest are renumbered). */
    manageChannelKeys: b.mutation<KeysView, KeyActionArgs>({
      query: ({ channelId, action, keyIndex }) => ({
        url: MANAGE_KEYS,
        method: 'POST',
        body: { channel_id: channelId, action, ...(keyIndex !== undefined ? { key_index: keyIndex } : {}) },
      }),
      // The channel's key counts and maybe its status change: its row, the list and its keys refetch.
      invalidatesTags: (_r, _e, a) => [{ type: 'Channel', id: a.channelId }, LIST],
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
  useChannelKeysQuery,
  useManageChannelKeysMutation,
  useTestAllChannelsMutation,
  useUpdateChannelBalanceMutation,
  useUpdateAllBalancesMutation,
  useFetchSavedModelsMutation,
  useFetchModelsMutation,
  useEnabledModelsQuery,
  useLazyAllModelsQuery,
  useLazyEnabledModelsQuery,
} = channelsApi;
