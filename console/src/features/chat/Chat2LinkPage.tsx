/** /chat2link: leaves for the first chat link, filled with the user's first enabled token (spec 3 §2.7). */
import { Result, Spin } from 'antd';
import { useEffect } from 'react';
import { useIntl } from 'react-intl';
import { ChatStatus } from './ChatStatus';
import { leaveFor } from './leave';
import { chat as m } from './messages';
import { useChatTarget } from './useChatTarget';

export function Chat2LinkPage() {
  const intl = useIntl();
  const target = useChatTarget(0);
  const url = target.state === 'ready' ? target.url : null;

  useEffect(() => {
    if (url) leaveFor(url);
  }, [url]);

  if (target.state !== 'ready') return <ChatStatus target={target} />;
  return <Result icon={<Spin size="large" />} title={intl.formatMessage(m.redirecting)} data-testid="chat2link-redirecting" />;
}
