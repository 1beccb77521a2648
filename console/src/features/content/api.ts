/**
 * The operator's About and home page content (options `About` and `HomePageContent`), read from
 * the public endpoints `GET /api/about` and `GET /api/home_page_content` (no sign-in).
 */
import { api } from '../../app/api';

export const contentApi = api.injectEndpoints({
  endpoints: (b) => ({
    getAbout: b.query<string, void>({
      query: () => 'about',
      providesTags: ['Option'],
    }),
    getHomePageContent: b.query<string, void>({
      query: () => 'home_page_content',
      providesTags: ['Option'],
    }),
  }),
});

export const { useGetAboutQuery, useGetHomePageContentQuery } = contentApi;
