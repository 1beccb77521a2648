import { api } from '../../app/api';
import type { AffTransferRequest, CheckInResult, CheckInStatus, SelfUpdateRequest, User, UserSetting } from '../../api/types';
import { userRefreshed } from '../../app/sessionSlice';
import { telegramQuery, type TelegramUser } from '../auth/telegram';

/** The third-party accounts a user can unbind (email stays: it is changed, not removed). */
export type BindingProvider = 'github' | 'oidc' | 'linuxdo' | 'wechat' | 'telegram';

export const personalApi = api.injectEndpoints({
  endpoints: (b) => ({
    getSelf: b.query<User, void>({
      query: () => 'user/self',
      providesTags: ['Self'],
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        const res = await queryFulfilled.catch(() => undefined);
        if (res) dispatch(userRefreshed(res.data));
      },
    }),
    updateSelf: b.mutation<unknown, SelfUpdateRequest>({
      query: (body) => ({ url: 'user/self', method: 'PUT', body }),
      invalidatesTags: ['Self'],
    }),
    deleteSelf: b.mutation<unknown, void>({
      query: () => ({ url: 'user/self', method: 'DELETE' }),
    }),
    generateAccessToken: b.mutation<string, void>({
      query: () => 'user/token',
    }),
    getAffCode: b.query<string, void>({
      query: () => 'user/aff',
    }),
    getUserModels: b.query<string[], void>({
      query: () => 'user/models',
      providesTags: ['Models'],
    }),
    getCheckInStatus: b.query<CheckInStatus, void>({
      query: () => 'user/check_in_status',
      providesTags: ['CheckIn'],
    }),
    checkIn: b.mutation<CheckInResult, void>({
      query: () => ({ url: 'user/check_in', method: 'POST' }),
      invalidatesTags: ['CheckIn', 'Self'],
    }),
    affTransfer: b.mutation<unknown, AffTransferRequest>({
      query: (body) => ({ url: 'user/aff_transfer', method: 'POST', body }),
      invalidatesTags: ['Self'],
    }),
    updateUserSetting: b.mutation<unknown, UserSetting>({
      query: (body) => ({ url: 'user/setting', method: 'PUT', body }),
      invalidatesTags: ['Self'],
    }),
    bindEmail: b.mutation<unknown, { email: string; code: string }>({
      query: (params) => ({ url: 'oauth/email/bind', params }),
      invalidatesTags: ['Self'],
    }),
    bindWeChat: b.mutation<unknown, { code: string }>({
      query: (params) => ({ url: 'oauth/wechat/bind', params }),
      invalidatesTags: ['Self'],
    }),
    /** The Telegram Login Widget's user fields, exactly, as the query. */
    bindTelegram: b.mutation<unknown, TelegramUser>({
      query: (user) => ({ url: 'oauth/telegram/bind', params: telegramQuery(user) }),
      invalidatesTags: ['Self'],
    }),
    unbind: b.mutation<unknown, BindingProvider>({
      query: (provider) => ({ url: `user/self/bindings/${provider}`, method: 'DELETE' }),
      invalidatesTags: ['Self'],
    }),
  }),
});

export const {
  useGetSelfQuery,
  useUpdateSelfMutation,
  useDeleteSelfMutation,
  useGenerateAccessTokenMutation,
  useGetAffCodeQuery,
  useGetUserModelsQuery,
  useGetCheckInStatusQuery,
  useCheckInMutation,
  useAffTransferMutation,
  useUpdateUserSettingMutation,
  useBindEmailMutation,
  useBindWeChatMutation,
  useBindTelegramMutation,
  useUnbindMutation,
} = personalApi;
