import { Button, Result } from 'antd';
import { useIntl } from 'react-intl';
import { Link } from 'react-router';
import { pages as m } from '../layout/messages';

export function NotFoundPage() {
  const intl = useIntl();
  return (
    <Result
      status="404"
      title={intl.formatMessage(m.notFoundTitle)}
      subTitle={intl.formatMessage(m.notFoundText)}
      extra={
        <Link to="/">
          <Button type="primary">{intl.formatMessage(m.backHome)}</Button>
        </Link>
      }
    />
  );
}
