/**
 * Drawing-log and task-log endpoints (spec 3 §7): admins read everyone's jobs (with a channel
 * filter), everyone else their own. Infinite queries: the server is read page by page
 * (`p`, `page_size`) as the table reaches the end of what is cached (paging.ts).
 */
import { api } from '../../app/api';
import type { Page } from '../../api/types';
import { SERVER_PAGE_SIZE } from './constants';
import { nextServerPage } from './paging';
import { drawingEndpoint, drawingParams, taskEndpoint, taskParams } from './query';
import type { DrawingJob, JobListArgs, TaskJob } from './types';

export const jobsApi = api.injectEndpoints({
  endpoints: (b) => ({
    listDrawings: b.infiniteQuery<Page<DrawingJob>, JobListArgs, number>({
      infiniteQueryOptions: {
        initialPageParam: 1,
        getNextPageParam: (_last, all) => nextServerPage(all),
      },
      query: ({ queryArg: { admin, filters }, pageParam }) => ({
        url: drawingEndpoint(admin),
        params: drawingParams(filters, admin, pageParam, SERVER_PAGE_SIZE),
      }),
    }),
    listTasks: b.infiniteQuery<Page<TaskJob>, JobListArgs, number>({
      infiniteQueryOptions: {
        initialPageParam: 1,
        getNextPageParam: (_last, all) => nextServerPage(all),
      },
      query: ({ queryArg: { admin, filters }, pageParam }) => ({
        url: taskEndpoint(admin),
        params: taskParams(filters, admin, pageParam, SERVER_PAGE_SIZE),
      }),
    }),
  }),
});

export const { useListDrawingsInfiniteQuery, useListTasksInfiniteQuery } = jobsApi;
