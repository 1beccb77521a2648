/**
 * The public pricing table (spec 3 §7: GET /api/pricing). Its reply carries `group_ratio` and
 * `usable_group` beside `data`, so the response handler folds them into `data` before the
 * envelope base query unwraps it. A signed-in viewer's `group_group_ratio` (their own ratios
 * for other groups) replaces those groups' ratios: prices are shown as the viewer pays them.
 */
import { api } from '../../app/api';
import type { PricingData, PricingModel } from './types';

interface PricingReply {
  success: boolean;
  message: string;
  data?: PricingModel[];
  group_ratio?: Record<string, number>;
  /** The viewer's own overrides (GroupGroupRatio of their group): what the gateway charges them. */
  group_group_ratio?: Record<string, number>;
  usable_group?: Record<string, string>;
}

/** Rewraps a successful reply as `{success, message, data: PricingData}`; other bodies pass as they are. */
export function foldPricingReply(body: unknown): unknown {
  if (!body || typeof body !== 'object' || !('success' in body)) return body;
  const reply = body as PricingReply;
  if (!reply.success) return body;
  const data: PricingData = {
    models: reply.data ?? [],
    groupRatio: { ...(reply.group_ratio ?? {}), ...(reply.group_group_ratio ?? {}) },
    usableGroups: reply.usable_group ?? {},
  };
  return { success: true, message: reply.message, data };
}

export const pricingApi = api.injectEndpoints({
  endpoints: (b) => ({
    /** The argument is the viewer's user id (0 signed out): the usable groups depend on who asks. */
    getPricing: b.query<PricingData, number>({
      query: () => ({
        url: 'pricing',
        responseHandler: async (res: Response) => {
          const text = await res.text();
          try {
            return foldPricingReply(JSON.parse(text));
          } catch {
            return text;
          }
        },
      }),
      providesTags: ['Pricing'],
    }),
  }),
});

export const { useGetPricingQuery } = pricingApi;
