import { api } from '../../app/api';
import type { StatusData } from '../../api/types';
import { sidebarCollapsedSet } from '../../app/uiSlice';
import { cacheStatus } from './cache';

export const statusApi = api.injectEndpoints({
  endpoints: (b) => ({
    getStatus: b.query<StatusData, void>({
      query: () => 'status',
      providesTags: ['Status'],
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          const collapsed = cacheStatus(data);
          if (collapsed !== undefined) dispatch(sidebarCollapsedSet(collapsed));
        } catch {
          // the cached copy stays in use
        }
      },
    }),
  }),
});

export const { useGetStatusQuery } = statusApi;
