/** The signed-in user, mirrored to local storage key `user`. */
import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { User } from '../api/types';
import { readJson, remove, STORAGE_KEY, writeJson } from '../shared/storage';

export interface SessionState {
  user: User | null;
  /** True after a 401: guards then send to /login with expired=true. */
  expired: boolean;
}

const initialState = (): SessionState => ({ user: readJson<User>(STORAGE_KEY.user), expired: false });

export const sessionSlice = createSlice({
  name: 'session',
  initialState,
  reducers: {
    signedIn(state, action: PayloadAction<User>) {
      state.user = action.payload;
      state.expired = false;
    },
    userRefreshed(state, action: PayloadAction<User>) {
      state.user = action.payload;
    },
    signedOut(state) {
      state.user = null;
      state.expired = false;
    },
    sessionExpired(state) {
      state.user = null;
      state.expired = true;
    },
  },
});

export const { signedIn, userRefreshed, signedOut, sessionExpired } = sessionSlice.actions;

/** Writes the user to local storage whenever it changes. */
export function persistSession(user: User | null): void {
  if (user) writeJson(STORAGE_KEY.user, user);
  else remove(STORAGE_KEY.user);
}
