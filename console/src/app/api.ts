/**
 * The one RTK Query API slice. Features inject their endpoints (`api.injectEndpoints`).
 * The base query unwraps the `{success, message, data}` envelope, sends the
 * `New-Api-User` and `Accept-Language` headers, and sends a 401 to the login page.
 */
import { createApi, fetchBaseQuery, type BaseQueryFn, type FetchArgs } from '@reduxjs/toolkit/query/react';
import type { ApiError } from '../shared/apiError';
import type { Envelope } from '../api/types';
import { expiredLoginPath, navigate } from './navigation';
import { sessionExpired } from './sessionSlice';
import type { SessionState } from './sessionSlice';
import type { UiState } from './uiSlice';

interface HeaderState {
  session: SessionState;
  ui: UiState;
}

/** Absolute: Node's fetch (vitest) rejects relative URLs. */
export function apiBaseUrl(): string {
  return new URL('/api/', window.location.origin).toString();
}

const raw = fetchBaseQuery({
  baseUrl: apiBaseUrl(),
  credentials: 'same-origin',
  prepareHeaders: (headers, { getState }) => {
    const state = getState() as HeaderState;
    if (state.session.user) headers.set('New-Api-User', String(state.session.user.id));
    headers.set('Accept-Language', state.ui.locale);
    return headers;
  },
});

function envelopeMessage(data: unknown): string {
  if (data && typeof data === 'object' && 'message' in data) return String((data as Envelope<unknown>).message ?? '');
  return typeof data === 'string' ? data : '';
}

/** What a successful reply carried besides its data: the envelope's message (e.g. "bind"). */
export interface EnvelopeMeta {
  message: string;
}

export const envelopeBaseQuery: BaseQueryFn<string | FetchArgs, unknown, ApiError, object, EnvelopeMeta> = async (
  args,
  api,
  extra,
) => {
  const res = await raw(args, api, extra);
  if (res.error) {
    const { status } = res.error;
    if (status === 401) {
      if (!window.location.pathname.startsWith('/login')) {
        navigate(expiredLoginPath(window.location), { replace: true });
      }
      api.dispatch(sessionExpired());
    }
    if (typeof status === 'number') return { error: { status, message: envelopeMessage(res.error.data) } };
    if (status === 'PARSING_ERROR') return { error: { status: 'PARSE_ERROR', message: String(res.error.error) } };
    return { error: { status: 'FETCH_ERROR', message: 'error' in res.error ? String(res.error.error) : '' } };
  }
  const body = res.data as Envelope<unknown> | undefined;
  if (body && typeof body === 'object' && 'success' in body) {
    if (!body.success) return { error: { status: 'BUSINESS', message: body.message } };
    return { data: body.data, meta: { message: String(body.message ?? '') } };
  }
  return { data: body };
};

export const api = createApi({
  reducerPath: 'api',
  baseQuery: envelopeBaseQuery,
  tagTypes: [
    'Status',
    'Setup',
    'Self',
    'User',
    'Group',
    'Option',
    'Models',
    'CheckIn',
    'Channel',
    'Token',
    'Redemption',
    'TopUp',
    'Pricing',
  ],
  endpoints: () => ({}),
});
