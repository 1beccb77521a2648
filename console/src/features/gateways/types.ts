/** API types of the gateways screen, from the generated OpenAPI schema. */
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** One gateway following the config feed: applied version, lag, last contact, connected. */
export type Gateway = Schemas['GatewayView'];
/** GET /api/gateway/: the newest config version and the gateways. */
export type GatewayList = Schemas['GatewayList'];
/** A usage record a gateway reported that the control plane refused. */
export type Rejection = Schemas['RejectionView'];

export interface RejectionQuery {
  p: number;
  pageSize: number;
}
