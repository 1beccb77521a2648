/** Gateway endpoints (admin): the gateways following the config feed, and the usage records ingest refused. */
import { api } from '../../app/api';
import type { Page } from '../../api/types';
import type { GatewayList, Rejection, RejectionQuery } from './types';

export const gatewaysApi = api.injectEndpoints({
  endpoints: (b) => ({
    listGateways: b.query<GatewayList, void>({
      query: () => 'gateway/',
    }),
    listRejections: b.query<Page<Rejection>, RejectionQuery>({
      query: ({ p, pageSize }) => ({ url: 'usage/rejected', params: { p, page_size: pageSize } }),
    }),
  }),
});

export const { useListGatewaysQuery, useListRejectionsQuery } = gatewaysApi;
