import { MODEL_TAGS_COLLAPSE_AFTER } from '../../shared/constants';

/** The model tags to show: the first 10 unless expanded (spec 1 §2). */
export function visibleModels(models: readonly string[], expanded: boolean): { shown: string[]; hidden: number } {
  if (expanded || models.length <= MODEL_TAGS_COLLAPSE_AFTER) return { shown: [...models], hidden: 0 };
  return { shown: models.slice(0, MODEL_TAGS_COLLAPSE_AFTER), hidden: models.length - MODEL_TAGS_COLLAPSE_AFTER };
}
