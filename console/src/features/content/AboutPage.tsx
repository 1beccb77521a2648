/**
 * /about (public; issue 16): the operator's `About` option, as markdown/HTML (sanitized) or, when
 * it is an address, the page in a sandboxed frame. Without content, a default that says where an
 * administrator sets it.
 */
import { InfoCircleOutlined } from '@ant-design/icons';
import { Button, Result, Spin } from 'antd';
import { useIntl } from 'react-intl';
import { Link } from 'react-router';
import { useCurrentUser } from '../../app/hooks';
import { isAdmin } from '../../shared/constants';
import { useGetAboutQuery } from './api';
import { ContentView } from './ContentView';
import { content as m } from './messages';
import { contentKind } from './rules';

export function AboutPage() {
  const intl = useIntl();
  const user = useCurrentUser();
  const { data, isLoading, isError } = useGetAboutQuery();
  if (isLoading) return <Spin style={{ display: 'block', margin: '64px auto' }} />;
  if (isError) return <Result status="warning" title={intl.formatMessage(m.loadFailed)} data-testid="about-error" />;
  const content = contentKind(data);
  if (content.kind !== 'empty') return <ContentView content={content} testId="about" />;
  return (
    <Result
      icon={<InfoCircleOutlined />}
      title={intl.formatMessage(m.aboutEmptyTitle)}
      subTitle={intl.formatMessage(m.aboutEmptyText)}
      extra={
        isAdmin(user?.role) && (
          <Link to="/setting?tab=other">
            <Button type="primary">{intl.formatMessage(m.openSettings)}</Button>
          </Link>
        )
      }
      data-testid="about-empty"
    />
  );
}
