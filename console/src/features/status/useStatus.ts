import { useMemo } from 'react';
import type { StatusData } from '../../api/types';
import { isApiError, type ApiError } from '../../shared/apiError';
import { effectiveQuotaPerUnit, type QuotaDisplay } from '../../shared/quota';
import { useGetStatusQuery } from './api';
import { cachedStatus } from './cache';

/** The live status, or the cached copy while it loads (or when the server is unreachable). */
export function useStatus(): { status: Partial<StatusData>; isLoading: boolean; error: ApiError | undefined } {
  const { data, isLoading, error } = useGetStatusQuery();
  return { status: data ?? cachedStatus(), isLoading, error: isApiError(error) ? error : undefined };
}

/** How quotas are shown (stable between renders while the status is unchanged). */
export function useQuotaDisplay(): QuotaDisplay {
  const { status } = useStatus();
  const quotaPerUnit = effectiveQuotaPerUnit(status.quota_per_unit);
  const displayInCurrency = status.display_in_currency ?? true;
  return useMemo(() => ({ quotaPerUnit, displayInCurrency }), [quotaPerUnit, displayInCurrency]);
}
