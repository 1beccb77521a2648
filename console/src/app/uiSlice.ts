/** UI preferences: language, theme, sidebar; each stored in local storage. */
import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { detectLocale, isLocale, type Locale } from '../i18n/locales';
import { readBool, readString, STORAGE_KEY, writeString } from '../shared/storage';

export type ThemeMode = 'light' | 'dark';

export interface UiState {
  locale: Locale;
  theme: ThemeMode;
  sidebarCollapsed: boolean;
}

function initialState(): UiState {
  const lang = readString(STORAGE_KEY.language);
  return {
    locale: isLocale(lang) ? lang : detectLocale(typeof navigator === 'undefined' ? [] : navigator.languages),
    theme: readString(STORAGE_KEY.themeMode) === 'dark' ? 'dark' : 'light',
    sidebarCollapsed: readBool(STORAGE_KEY.defaultCollapseSidebar),
  };
}

export const uiSlice = createSlice({
  name: 'ui',
  initialState,
  reducers: {
    localeChanged(state, action: PayloadAction<Locale>) {
      state.locale = action.payload;
    },
    themeToggled(state) {
      state.theme = state.theme === 'dark' ? 'light' : 'dark';
    },
    sidebarCollapsedSet(state, action: PayloadAction<boolean>) {
      state.sidebarCollapsed = action.payload;
    },
    sidebarToggled(state) {
      state.sidebarCollapsed = !state.sidebarCollapsed;
    },
  },
});

export const { localeChanged, themeToggled, sidebarToggled, sidebarCollapsedSet } = uiSlice.actions;

/** Writes the preferences to local storage (called by the store on change). */
export function persistUi(ui: UiState): void {
  writeString(STORAGE_KEY.language, ui.locale);
  writeString(STORAGE_KEY.themeMode, ui.theme);
  writeString(STORAGE_KEY.defaultCollapseSidebar, String(ui.sidebarCollapsed));
}
