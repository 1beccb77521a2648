/**
 * Usage-log endpoints (spec 3 §7): one page of records and the totals of the same filters.
 * Admins call the global endpoints, everyone else their own (`/self/`). Paging is done by the
 * server (`p`, `page_size`), so a page costs the same however long the log grows.
 */
import { api } from '../../app/api';
import type { Page } from '../../api/types';
import { listParams, logEndpoints, logParams } from './query';
import type { LogFilters, LogRecord, LogStats } from './types';

export interface LogListArgs {
  admin: boolean;
  filters: LogFilters;
  page: number;
  pageSize: number;
}

export interface LogStatArgs {
  admin: boolean;
  filters: LogFilters;
}

export const logsApi = api.injectEndpoints({
  endpoints: (b) => ({
    listLogs: b.query<Page<LogRecord>, LogListArgs>({
      query: ({ admin, filters, page, pageSize }) => ({
        url: logEndpoints(admin).list,
        params: listParams(filters, admin, page, pageSize),
      }),
    }),
    logStats: b.query<LogStats, LogStatArgs>({
      query: ({ admin, filters }) => ({ url: logEndpoints(admin).stat, params: logParams(filters, admin) }),
    }),
  }),
});

export const { useListLogsQuery, useLogStatsQuery } = logsApi;
