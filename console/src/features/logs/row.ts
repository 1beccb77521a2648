/** A table row: the record with its `other` string read once. */
import { parseOther, type LogOther } from './other';
import type { LogRecord } from './types';

export interface LogRow extends LogRecord {
  parsed: LogOther;
}

export function toRows(items: readonly LogRecord[]): LogRow[] {
  return items.map((l) => ({ ...l, parsed: parseOther(l.other) }));
}
