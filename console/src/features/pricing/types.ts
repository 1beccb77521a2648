/** API types of the pricing screen, from the generated OpenAPI schema. */
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** One model of GET /api/pricing: how it is billed and the groups that serve it. */
export type PricingModel = Schemas['PricingModel'];

/** GET /api/pricing as the screen keeps it (the reply carries the maps beside `data`). */
export interface PricingData {
  models: PricingModel[];
  /** Group name → ratio (the GroupRatio option). */
  groupRatio: Record<string, number>;
  /** Groups the viewer may use: name → description (the viewer's own group is always there). */
  usableGroups: Record<string, string>;
}
