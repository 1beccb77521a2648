import { api } from '../../app/api';
import type { SetupRequest, SetupStatus } from '../../api/types';

export const setupApi = api.injectEndpoints({
  endpoints: (b) => ({
    getSetup: b.query<SetupStatus, void>({
      query: () => 'setup',
      providesTags: ['Setup'],
    }),
    submitSetup: b.mutation<unknown, SetupRequest>({
      query: (body) => ({ url: 'setup', method: 'POST', body }),
      invalidatesTags: ['Setup', 'Status'],
    }),
  }),
});

export const { useGetSetupQuery, useSubmitSetupMutation } = setupApi;
