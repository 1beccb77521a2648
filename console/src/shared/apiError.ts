/** The console's error shape for every API call, and its text per the error catalogue (spec 1 §8). */
import type { IntlShape } from 'react-intl';
import { errors } from './messages';

export type ApiErrorStatus = number | 'BUSINESS' | 'FETCH_ERROR' | 'PARSE_ERROR';

export interface ApiError {
  status: ApiErrorStatus;
  message: string;
}

export function isApiError(e: unknown): e is ApiError {
  return typeof e === 'object' && e !== null && 'status' in e && 'message' in e;
}

/** The toast text for an error: business failures show the server's message. */
export function errorText(intl: IntlShape, e: ApiError): string {
  switch (e.status) {
    case 'BUSINESS':
      return e.message;
    case 'FETCH_ERROR':
      return intl.formatMessage(errors.network);
    case 401:
      return intl.formatMessage(errors.unauthorized);
    case 429:
      return intl.formatMessage(errors.tooManyRequests);
    case 500:
      return intl.formatMessage(errors.serverError);
    case 405:
      return intl.formatMessage(errors.demoSite);
    default:
      return intl.formatMessage(errors.generic, { message: e.message || String(e.status) });
  }
}
