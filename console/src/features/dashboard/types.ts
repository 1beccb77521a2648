/** API types of the dashboard, from the generated OpenAPI schema. */
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** One hour of one model's consumption (GET /api/data/, /api/data/self). */
export type ModelPoint = Schemas['ModelPoint'];
/** One hour of one user's consumption (GET /api/data/users). */
export type UserPoint = Schemas['UserPoint'];

/** The query of every dashboard endpoint (epoch seconds; `username` admin only). */
export interface DataQuery {
  start_timestamp: number;
  end_timestamp: number;
  username?: string;
}

/** A time range in epoch seconds, both ends included. */
export interface TimeRange {
  start: number;
  end: number;
}
