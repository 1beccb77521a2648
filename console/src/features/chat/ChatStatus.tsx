/** What a chat-link page shows until its link is ready: loading, sign-in, no token (then /token), errors. */
import { Button, Result, Spin } from 'antd';
import { useEffect } from 'react';
import { useIntl } from 'react-intl';
import { Link, useLocation, useNavigate } from 'react-router';
import { toast } from '../../shared/feedback';
import { chat as m } from './messages';
import { NO_TOKEN_REDIRECT_MS } from './rules';
import type { ChatTarget } from './useChatTarget';

export function ChatStatus({ target }: { target: Exclude<ChatTarget, { state: 'ready' }> }) {
  const intl = useIntl();
  const navigate = useNavigate();
  const location = useLocation();
  const noToken = target.state === 'noToken';

  useEffect(() => {
    if (!noToken) return;
    toast.error(intl.formatMessage(m.noToken));
    const timer = window.setTimeout(() => void navigate('/token'), NO_TOKEN_REDIRECT_MS);
    return () => window.clearTimeout(timer);
  }, [noToken, intl, navigate]);

  switch (target.state) {
    case 'loading':
      return (
        <Spin size="large" data-testid="chat-loading" style={{ display: 'block', margin: '64px auto' }}>
          <div style={{ padding: 48, textAlign: 'center' }}>{intl.formatMessage(m.loading)}</div>
        </Spin>
      );
    case 'signedOut':
      return (
        <Result
          status="info"
          title={intl.formatMessage(m.signIn)}
          data-testid="chat-sign-in"
          extra={
            <Link to={`/login?returnTo=${encodeURIComponent(location.pathname + location.search)}`}>
              <Button type="primary">{intl.formatMessage(m.signInButton)}</Button>
            </Link>
          }
        />
      );
    case 'noToken':
      return <Result status="warning" title={intl.formatMessage(m.noToken)} data-testid="chat-no-token" />;
    case 'error':
      return <Result status="warning" title={intl.formatMessage(target.message)} data-testid="chat-error" />;
  }
}
