/** Wallet endpoints (spec 2 §7.5): redeem a code, quote and start an online top-up, the user's top-up orders. */
import { api } from '../../app/api';
import type { Page } from '../../api/types';
import type { PaymentForm, RedeemResult, TopUpOrder, TopUpRequest } from './types';

/** /api/user/pay answers `url` beside `data`; both are kept (the envelope would drop `url`). */
async function paymentReply(res: Response): Promise<unknown> {
  const body: unknown = await res.json();
  if (body && typeof body === 'object' && 'success' in body && body.success === true) {
    const reply = body as { message?: string; data?: PaymentForm['fields']; url?: string };
    return { success: true, message: reply.message ?? '', data: { fields: reply.data ?? {}, url: reply.url ?? '' } };
  }
  return body;
}

export const walletApi = api.injectEndpoints({
  endpoints: (b) => ({
    redeemCode: b.mutation<RedeemResult, string>({
      query: (key) => ({ url: 'user/topup', method: 'POST', body: { key } }),
      invalidatesTags: ['Self', 'TopUp'],
    }),
    quoteTopUp: b.mutation<string, TopUpRequest>({
      query: (body) => ({ url: 'user/amount', method: 'POST', body }),
    }),
    startPayment: b.mutation<PaymentForm, TopUpRequest>({
      query: (body) => ({ url: 'user/pay', method: 'POST', body, responseHandler: paymentReply }),
      invalidatesTags: ['TopUp'],
    }),
    listOwnTopUps: b.query<Page<TopUpOrder>, { p: number; pageSize: number }>({
      query: ({ p, pageSize }) => ({ url: 'user/topup/self', params: { p, page_size: pageSize } }),
      providesTags: ['TopUp'],
    }),
  }),
});

export const { useRedeemCodeMutation, useQuoteTopUpMutation, useStartPaymentMutation, useListOwnTopUpsQuery } = walletApi;
