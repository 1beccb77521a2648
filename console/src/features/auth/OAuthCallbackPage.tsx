import { Spin } from 'antd';
import { useEffect, useRef } from 'react';
import { useIntl } from 'react-intl';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { useCurrentUser } from '../../app/hooks';
import { toast } from '../../shared/feedback';
import { useOauthCallbackMutation } from './api';
import { oauth as m } from './messages';
import { useSignIn } from './useSignIn';

/** /oauth/{github,oidc,linuxdo}: exchanges code and state, then signs in or confirms a binding. */
export function OAuthCallbackPage() {
  const intl = useIntl();
  const { provider = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const signIn = useSignIn();
  const user = useCurrentUser();
  const [finish] = useOauthCallbackMutation();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    finish({ provider, code: params.get('code') ?? '', state: params.get('state') ?? '' })
      .unwrap()
      .then((data) => {
        if (user) {
          toast.success(intl.formatMessage(m.bound));
          navigate('/personal', { replace: true });
        } else if (data && typeof data === 'object') {
          signIn(data, null, '/');
        }
      })
      .catch(() => {
        toast.error(intl.formatMessage(m.failed));
        window.setTimeout(() => navigate('/login', { replace: true }), 1500);
      });
  }, [finish, intl, navigate, params, provider, signIn, user]);

  return <Spin tip={intl.formatMessage(m.working)} fullscreen />;
}
