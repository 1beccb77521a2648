import { Alert } from 'antd';
import { useIntl } from 'react-intl';
import { errors } from '../../shared/messages';
import { useStatus } from './useStatus';

/** Says so when the public status cannot be loaded (spec 3 §8); the cached copy stays in use. */
export function StatusBanner() {
  const intl = useIntl();
  const { error } = useStatus();
  if (!error) return null;
  const text = error.status === 'FETCH_ERROR' ? errors.network : errors.statusLoad;
  return <Alert type="error" banner title={intl.formatMessage(text)} data-testid="status-banner" />;
}
