import type { StatusData } from '../../api/types';
import { effectiveQuotaPerUnit, type QuotaDisplay } from '../../shared/quota';
import { useGetStatusQuery } from './api';
import { cachedStatus } from './cache';

/** The live status, or the cached copy while it loads (or when the server is unreachable). */
export function useStatus(): { status: Partial<StatusData>; isLoading: boolean; isError: boolean } {
  const { data, isLoading, isError } = useGetStatusQuery();
  return { status: data ?? cachedStatus(), isLoading, isError };
}

export function useQuotaDisplay(): QuotaDisplay {
  const { status } = useStatus();
  return {
    quotaPerUnit: effectiveQuotaPerUnit(status.quota_per_unit),
    displayInCurrency: status.display_in_currency ?? true,
  };
}
