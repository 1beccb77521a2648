import { useCallback, useEffect, useState } from 'react';

/** A countdown in seconds (e.g. 'resend (n)' after sending a code); 0 when idle. */
export function useCooldown(seconds: number): [number, () => void] {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (left <= 0) return undefined;
    const t = window.setTimeout(() => setLeft((n) => n - 1), 1000);
    return () => window.clearTimeout(t);
  }, [left]);
  const start = useCallback(() => setLeft(seconds), [seconds]);
  return [left, start];
}
