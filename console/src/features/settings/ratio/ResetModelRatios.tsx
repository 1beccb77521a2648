/** The "reset model ratios" button: after a confirmation, puts the pricing options back to the built-in table. */
import { Button, Popconfirm } from 'antd';
import { useIntl } from 'react-intl';
import { errorText, isApiError } from '../../../shared/apiError';
import { toast } from '../../../shared/feedback';
import { errors } from '../../../shared/messages';
import { useResetModelRatiosMutation } from '../api';
import { ratioJson as m } from './messages';

export function ResetModelRatios() {
  const intl = useIntl();
  const [reset, { isLoading }] = useResetModelRatiosMutation();
  const run = async () => {
    try {
      await reset().unwrap();
      toast.success(intl.formatMessage(m.resetDone));
    } catch (e) {
      toast.error(isApiError(e) ? errorText(intl, e) : intl.formatMessage(errors.updateFailed));
    }
  };
  return (
    <Popconfirm title={intl.formatMessage(m.resetConfirm)} onConfirm={run}>
      <Button danger loading={isLoading} data-testid="reset-model-ratios">
        {intl.formatMessage(m.reset)}
      </Button>
    </Popconfirm>
  );
}
