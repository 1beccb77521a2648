/** API types of the wallet screen, from the generated OpenAPI schema. */
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

export type TopUpRequest = Schemas['TopUpRequest'];
export type RedeemResult = Schemas['RedeemResult'];
export type TopUpOrder = Schemas['TopUpView'];

/** POST /api/user/pay: the form fields to post to the provider's url. */
export interface PaymentForm {
  fields: Schemas['PayReply']['data'];
  url: string;
}
