/** The signed-in user, mirrored to local storage key `user`. */
import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { User } from '../api/types';
import { readJson, remove, STORAGE_KEY, writeJson } from '../shared/storage';

export interface SessionState {
  user: User | null;
  /**
   * Why there is no user: guards send a 401 ('expired') to /login?expired=true&returnTo=…,
   * a deliberate sign-out to /login, and a visitor who never signed in to /login?returnTo=….
   */
  ended: 'no' | 'expired' | 'signedOut';
}

const initialState = (): SessionState => ({ user: readJson<User>(STORAGE_KEY.user), ended: 'no' });

export const sessionSlice = createSlice({
  name: 'session',
  initialState,
  reducers: {
    signedIn(state, action: PayloadAction<User>) {
      state.user = action.payload;
      state.ended = 'no';
    },
    userRefreshed(state, action: PayloadAction<User>) {
      state.user = action.payload;
    },
    signedOut(state) {
      state.user = null;
      state.ended = 'signedOut';
    },
    sessionExpired(state) {
      state.user = null;
      state.ended = 'expired';
    },
  },
});

export const { signedIn, userRefreshed, signedOut, sessionExpired } = sessionSlice.actions;

/** Writes the user to local storage whenever it changes. */
export function persistSession(user: User | null): void {
  if (user) writeJson(STORAGE_KEY.user, user);
  else remove(STORAGE_KEY.user);
}
