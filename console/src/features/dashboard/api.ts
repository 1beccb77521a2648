/**
 * Dashboard endpoints (hourly roll-ups written when usage is ingested): the caller's own by model
 * (at most 30 days), everyone's by model (admin, optionally one user's) and by user (admin).
 */
import { api } from '../../app/api';
import type { DataQuery, ModelPoint, UserPoint } from './types';

export const dashboardApi = api.injectEndpoints({
  endpoints: (b) => ({
    getOwnData: b.query<ModelPoint[], DataQuery>({
      query: ({ start_timestamp, end_timestamp }) => ({ url: 'data/self', params: { start_timestamp, end_timestamp } }),
    }),
    getAllData: b.query<ModelPoint[], DataQuery>({
      query: (params) => ({ url: 'data/', params }),
    }),
    getUserData: b.query<UserPoint[], DataQuery>({
      query: ({ start_timestamp, end_timestamp }) => ({ url: 'data/users', params: { start_timestamp, end_timestamp } }),
    }),
  }),
});

export const { useGetOwnDataQuery, useGetAllDataQuery, useGetUserDataQuery } = dashboardApi;
