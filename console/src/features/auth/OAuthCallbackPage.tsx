import { Result, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useIntl } from 'react-intl';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { useCurrentUser } from '../../app/hooks';
import { errorText, isApiError } from '../../shared/apiError';
import { toast } from '../../shared/feedback';
import { useOauthCallbackMutation } from './api';
import { oauth as m } from './messages';
import { takeReturnTo } from './oauthReturnTo';
import { useSignIn } from './useSignIn';

/** How long the failure stays on screen before the redirect. */
export const FAILURE_REDIRECT_MS = 2000;

/**
 * /oauth/{github,oidc,linuxdo}: sends code and state to the server. Its reply decides: message
 * "bind" means the provider account was bound (toast, /personal); a user means a sign-in
 * (returnTo or /token). A failure shows the server's message, then the user goes to /login
 * (or back to /personal when signed in).
 */
export function OAuthCallbackPage() {
  const intl = useIntl();
  const { provider = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const signIn = useSignIn();
  const signedIn = Boolean(useCurrentUser());
  const [finish] = useOauthCallbackMutation();
  const [failure, setFailure] = useState<string | null>(null);
  // The exchange runs once: the code is single-use (React StrictMode runs effects twice).
  const started = useRef(false);
  const code = params.get('code');
  const missingCode = code ? null : (params.get('error_description') ?? params.get('error') ?? intl.formatMessage(m.noCode));
  const shown = failure ?? missingCode;

  useEffect(() => {
    if (started.current || !code) return;
    started.current = true;
    // Read (and forget) the remembered value either way, so that it cannot apply to a later sign-in.
    const remembered = takeReturnTo();
    const returnTo = params.get('returnTo') ?? remembered;
    finish({ provider, code, state: params.get('state') ?? '' })
      .unwrap()
      .then((outcome) => {
        if (outcome.kind === 'bound') {
          toast.success(intl.formatMessage(m.bound));
          navigate('/personal', { replace: true });
        } else if (outcome.kind === 'signedIn') {
          signIn(outcome.user, returnTo);
        } else {
          setFailure(intl.formatMessage(m.unexpected));
        }
      })
      .catch((e: unknown) => {
        const text = isApiError(e) ? errorText(intl, e) : String(e);
        toast.error(text);
        setFailure(text);
      });
  }, [code, finish, intl, navigate, params, provider, signIn]);

  useEffect(() => {
    if (shown === null) return;
    const timer = window.setTimeout(() => navigate(signedIn ? '/personal' : '/login', { replace: true }), FAILURE_REDIRECT_MS);
    return () => window.clearTimeout(timer);
  }, [navigate, shown, signedIn]);

  if (shown !== null) {
    return (
      <div data-testid="oauth-failure">
        <Result status="error" title={shown} subTitle={intl.formatMessage(signedIn ? m.failedSignedIn : m.failed)} />
      </div>
    );
  }
  return <Spin tip={intl.formatMessage(m.working)} fullscreen />;
}
