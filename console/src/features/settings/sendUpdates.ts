/** Sends a save plan's updates: enabled flags one by one first, then the rest together. */
import { splitFlags } from './savePlan';

/** Answers how many updates failed. */
export async function sendUpdates(
  updates: { key: string; value: string }[],
  put: (u: { key: string; value: string }) => Promise<unknown>,
): Promise<number> {
  const { flags, rest } = splitFlags(updates);
  let failed = 0;
  for (const u of flags) {
    await put(u).catch(() => (failed += 1));
  }
  const results = await Promise.allSettled(rest.map(put));
  return failed + results.filter((r) => r.status === 'rejected').length;
}
