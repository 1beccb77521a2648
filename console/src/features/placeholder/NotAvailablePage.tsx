import { Result } from 'antd';
import { useIntl, type MessageDescriptor } from 'react-intl';
import { common } from '../../shared/messages';

/** Route of a screen that a later release brings: says so plainly, shows no data. */
export function NotAvailablePage({ name }: { name: MessageDescriptor }) {
  const intl = useIntl();
  return (
    <Result
      status="info"
      title={intl.formatMessage(common.notAvailableTitle)}
      subTitle={intl.formatMessage(common.notAvailableHint, { name: intl.formatMessage(name) })}
      data-testid="not-available"
    />
  );
}
