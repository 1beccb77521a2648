/** What a settings panel save sends: only changed keys, slashes stripped, flags first. Pure. */
import type { MessageDescriptor } from 'react-intl';
import { errors, validation } from '../../shared/messages';
import { settings } from './messages';
import { modelHints } from './model/messages';
import {
  changedKeys,
  orderForSave,
  stripTrailingSlashes,
  validateJsonSetting,
  validateMinimum,
  type Problem,
} from '../../shared/validation';
import type { FieldDef, PanelDef, Values } from './panels';

export type SavePlan = { problem: Problem } | { updates: { key: string; value: string }[] };

/** The panel's values as they would be saved (trailing slashes stripped). */
export function normalise(fields: FieldDef[], edited: Values): Values {
  const out: Values = {};
  for (const f of fields) {
    const v = edited[f.key] ?? '';
    out[f.key] = f.stripSlash ? stripTrailingSlashes(v) : v;
  }
  return out;
}

/** A number field's bounds: at least `min`; within `min`–`max` when the field checks its range. */
export function validateNumberField(f: FieldDef, text: string): Problem | null {
  if (f.checkRange && f.min !== undefined && f.max !== undefined) {
    const n = text.trim() === '' ? NaN : Number(text);
    const inRange = Number.isFinite(n) && n >= f.min && n <= f.max;
    return inRange ? null : { message: modelHints.range, values: { name: f.key, min: f.min, max: f.max } };
  }
  return f.min === undefined ? null : validateMinimum(f.key, Number(text), f.min);
}

/** Both texts parse to the same JSON (same keys in the same order, same values). */
export function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

/** A saved value as its input shows it: JSON indented for reading, anything else as stored. */
export function displayValue(field: FieldDef, saved: string): string {
  if (field.kind !== 'json') return saved;
  try {
    return JSON.stringify(JSON.parse(saved), null, 2);
  } catch {
    return saved;
  }
}

export function planSave(panel: PanelDef, saved: Values, edited: Values): SavePlan {
  const values = normalise(panel.fields, edited);
  // Secret fields are never returned: empty means "keep".
  const secrets = new Set(panel.fields.filter((f) => f.kind === 'secret').map((f) => f.key as string));
  // A JSON text that only changed its layout (see `displayValue`) is not a change.
  const json = new Set(panel.fields.filter((f) => f.kind === 'json').map((f) => f.key as string));
  const keys = changedKeys(saved, values).filter(
    (k) => !(secrets.has(k) && values[k] === '') && !(json.has(k) && sameJson(saved[k] ?? '', values[k])),
  );
  if (keys.length === 0) return { problem: { message: validation.nothingChanged } };
  for (const f of panel.fields) {
    if (!keys.includes(f.key)) continue;
    const v = values[f.key];
    if (f.kind === 'json') {
      const p = validateJsonSetting(f.key, v);
      if (p) return { problem: p };
    }
    if (f.kind === 'number') {
      const p = validateNumberField(f, v);
      if (p) return { problem: p };
    }
  }
  const panelProblem = panel.validate?.(values, saved);
  if (panelProblem) return { problem: panelProblem };
  return { updates: orderForSave(keys).map((key) => ({ key, value: values[key] })) };
}

/** Flag updates go one by one, in order, before the others (spec 1 §4). */
export function splitFlags(updates: { key: string; value: string }[]): {
  flags: { key: string; value: string }[];
  rest: { key: string; value: string }[];
} {
  const isFlag = (k: string) => /enabled$/i.test(k);
  return { flags: updates.filter((u) => isFlag(u.key)), rest: updates.filter((u) => !isFlag(u.key)) };
}

/** The message after a save: saved; 'update failed' for one key; whole or partial failure (spec 1 §8). */
export function saveOutcome(failed: number, total: number): MessageDescriptor {
  if (failed === 0) return settings.saved;
  if (total === 1) return errors.updateFailed;
  return failed === total ? errors.saveFailed : errors.partialSaveFailed;
}
