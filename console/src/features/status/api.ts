import { api } from '../../app/api';
import type { StatusData } from '../../api/types';
import { cacheStatus } from './cache';

export const statusApi = api.injectEndpoints({
  endpoints: (b) => ({
    getStatus: b.query<StatusData, void>({
      query: () => 'status',
      providesTags: ['Status'],
      async onQueryStarted(_arg, { queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          cacheStatus(data);
        } catch {
          // the cached copy stays in use
        }
      },
    }),
  }),
});

export const { useGetStatusQuery } = statusApi;
