/** The redux store: session, UI preferences and the API cache; toasts for failed calls. */
import { combineReducers, configureStore, createListenerMiddleware, isRejectedWithValue } from '@reduxjs/toolkit';
import { api } from './api';
import { persistSession, sessionSlice } from './sessionSlice';
import { persistUi, uiSlice } from './uiSlice';
import { errorText, isApiError } from '../shared/apiError';
import { toast } from '../shared/feedback';
import { getIntl } from '../i18n/intl';

const rootReducer = combineReducers({
  session: sessionSlice.reducer,
  ui: uiSlice.reducer,
  [api.reducerPath]: api.reducer,
});

export type RootState = ReturnType<typeof rootReducer>;

/** Endpoints whose failures the screens handle themselves (no global toast). */
const QUIET_ENDPOINTS = new Set([
  'getStatus',
  'getSetup',
  'getCheckInStatus',
  'checkIn',
  'updateUserSetting',
  'submitSetup',
  'copyChannel',
  // The OAuth callback page shows the server's message with its redirect notice.
  'oauthCallback',
  // Polled every 10 s: the gateways screen shows their failures itself.
  'listGateways',
  'listRejections',
]);

function errorToasts() {
  const listener = createListenerMiddleware();
  listener.startListening({
    matcher: isRejectedWithValue,
    effect: (action) => {
      const err = action.payload;
      const endpoint = (action.meta as { arg?: { endpointName?: string } }).arg?.endpointName;
      if (!isApiError(err) || err.status === 401 || (endpoint && QUIET_ENDPOINTS.has(endpoint))) return;
      toast.error(errorText(getIntl(), err));
    },
  });
  return listener.middleware;
}

export function makeStore(preloaded?: Partial<RootState>) {
  const store = configureStore({
    reducer: rootReducer,
    preloadedState: preloaded,
    middleware: (gdm) => gdm().prepend(errorToasts()).concat(api.middleware),
  });
  let prev = store.getState();
  store.subscribe(() => {
    const next = store.getState();
    if (next.session.user !== prev.session.user) persistSession(next.session.user);
    if (next.ui !== prev.ui) persistUi(next.ui);
    prev = next;
  });
  return store;
}

export type AppStore = ReturnType<typeof makeStore>;
export type AppDispatch = AppStore['dispatch'];
