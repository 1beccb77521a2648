import type { IntlShape } from 'react-intl';
import { toast } from './feedback';
import type { Problem } from './validation';

/** Shows a validation problem as an error toast; answers true when there was one. */
export function reportProblem(intl: IntlShape, p: Problem | null): boolean {
  if (!p) return false;
  toast.error(intl.formatMessage(p.message, p.values));
  return true;
}
