/** The signed-in user, mirrored to local storage key `user`. */
import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { User } from '../api/types';
import { readJson, remove, STORAGE_KEY, writeJson } from '../shared/storage';

export interface SessionState {
  user: User | null;
}

const initialState = (): SessionState => ({ user: readJson<User>(STORAGE_KEY.user) });

export const sessionSlice = createSlice({
  name: 'session',
  initialState,
  reducers: {
    signedIn(state, action: PayloadAction<User>) {
      state.user = action.payload;
    },
    userRefreshed(state, action: PayloadAction<User>) {
      state.user = action.payload;
    },
    signedOut(state) {
      state.user = null;
    },
  },
});

export const { signedIn, userRefreshed, signedOut } = sessionSlice.actions;

/** Writes the user to local storage whenever it changes. */
export function persistSession(user: User | null): void {
  if (user) writeJson(STORAGE_KEY.user, user);
  else remove(STORAGE_KEY.user);
}
