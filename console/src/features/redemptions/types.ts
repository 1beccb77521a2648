/** API types of the redemption codes screen, from the generated OpenAPI schema. */
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

export type Redemption = Schemas['RedemptionView'];
/** A code's settings as sent on create and update. */
export type CodeInput = Schemas['CodeInput'];

export interface RedemptionQuery {
  keyword: string;
  p: number;
  pageSize: number;
}
