import { Button, Popconfirm } from 'antd';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { succeeded } from '../../shared/succeeded';
import { useUnbindMutation, type BindingProvider } from './api';
import { bindings as m } from './messages';

/** Unbinds one third-party account after a confirmation; the server's refusal is toasted as it comes. */
export function UnbindButton({ provider, name }: { provider: BindingProvider; name: string }) {
  const intl = useIntl();
  const [unbind, { isLoading }] = useUnbindMutation();
  const onConfirm = async () => {
    if (await succeeded(unbind(provider))) toast.success(intl.formatMessage(m.unbindDone, { name }));
  };
  return (
    <Popconfirm title={intl.formatMessage(m.unbindConfirm, { name })} onConfirm={onConfirm}>
      <Button size="small" danger loading={isLoading} data-testid={`unbind-${provider}`}>
        {intl.formatMessage(m.unbind)}
      </Button>
    </Popconfirm>
  );
}
