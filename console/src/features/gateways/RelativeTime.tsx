/** "x seconds ago" for an epoch-seconds time, kept up to date while shown. */
import { useEffect, useState } from 'react';
import { useIntl } from 'react-intl';
import { RELATIVE_TICK_MS } from './constants';
import { relativeAge } from './rules';

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export function RelativeTime({ seconds }: { seconds: number }) {
  const intl = useIntl();
  const now = useNow(RELATIVE_TICK_MS);
  const { value, unit } = relativeAge(seconds, now);
  return <>{intl.formatRelativeTime(value, unit, { numeric: 'auto' })}</>;
}
