import { api } from '../../app/api';
import type { LoginUser, RegisterRequest, ResetRequest } from '../../api/types';
import { oauthOutcome, type OAuthOutcome } from './oauthOutcome';
import { telegramQuery, type TelegramUser } from './telegram';

const turnstileQuery = (t?: string) => (t ? `?turnstile=${encodeURIComponent(t)}` : '');

export const authApi = api.injectEndpoints({
  endpoints: (b) => ({
    login: b.mutation<LoginUser, { username: string; password: string; turnstile?: string }>({
      query: ({ turnstile, ...body }) => ({ url: `user/login${turnstileQuery(turnstile)}`, method: 'POST', body }),
    }),
    logout: b.mutation<unknown, void>({
      query: () => 'user/logout',
    }),
    register: b.mutation<unknown, RegisterRequest & { turnstile?: string }>({
      query: ({ turnstile, ...body }) => ({ url: `user/register${turnstileQuery(turnstile)}`, method: 'POST', body }),
    }),
    sendVerification: b.mutation<unknown, { email: string; turnstile?: string }>({
      query: ({ email, turnstile }) => ({ url: 'verification', params: { email, turnstile } }),
    }),
    requestPasswordReset: b.mutation<unknown, { email: string; turnstile?: string }>({
      query: ({ email, turnstile }) => ({ url: 'reset_password', params: { email, turnstile } }),
    }),
    confirmPasswordReset: b.mutation<string, ResetRequest>({
      query: (body) => ({ url: 'user/reset', method: 'POST', body }),
    }),
    /** GET /api/oauth/{github|oidc|linuxdo}: binds (message "bind") when signed in, else signs in. */
    oauthCallback: b.mutation<OAuthOutcome, { provider: string; code: string; state: string }>({
      query: ({ provider, code, state }) => ({ url: `oauth/${encodeURIComponent(provider)}`, params: { code, state } }),
      transformResponse: (data: unknown, meta) => oauthOutcome(data, meta?.message),
    }),
    wechatLogin: b.mutation<LoginUser, { code: string }>({
      query: ({ code }) => ({ url: 'oauth/wechat', params: { code } }),
    }),
    telegramLogin: b.mutation<LoginUser, TelegramUser>({
      query: (user) => ({ url: 'oauth/telegram/login', params: telegramQuery(user) }),
    }),
    oauthState: b.mutation<string, { aff?: string }>({
      query: ({ aff }) => ({ url: 'oauth/state', params: aff ? { aff } : undefined }),
    }),
  }),
});

export const {
  useLoginMutation,
  useLogoutMutation,
  useRegisterMutation,
  useSendVerificationMutation,
  useRequestPasswordResetMutation,
  useConfirmPasswordResetMutation,
  useOauthCallbackMutation,
  useWechatLoginMutation,
  useTelegramLoginMutation,
  useOauthStateMutation,
} = authApi;
