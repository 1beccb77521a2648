/** API types of the usage log, from the generated OpenAPI schema, and the filter form's shape. */
import type { components } from '../../api/schema';
import type { LogType } from './constants';

type Schemas = components['schemas'];

/** A log record (GET /api/log/, /api/log/self/); `other` is a JSON string. */
export type LogRecord = Schemas['LogView'];
/** Totals of the filtered records (GET /api/log/stat, /api/log/self/stat). */
export type LogStats = Schemas['LogStats'];

/** The filter form: what the user chose; turned into query parameters by `query.ts`. */
export interface LogFilters {
  /** Epoch seconds, or null for no bound. */
  start: number | null;
  end: number | null;
  tokenName: string;
  modelName: string;
  group: string;
  requestId: string;
  /** Admins only: a channel id typed as text, and a user name. */
  channel: string;
  username: string;
  type: LogType;
}

/** Query parameters of the list and stat calls (absent ones are not sent). */
export type LogParams = Record<string, string | number>;
