import { App } from 'antd';
import { useCallback } from 'react';
import { useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import type { LoginUser } from '../../api/types';
import { useAppDispatch } from '../../app/hooks';
import { signedIn } from '../../app/sessionSlice';
import { toast } from '../../shared/feedback';
import { errors } from '../../shared/messages';
import { safeReturnPath } from '../../shared/safePath';
import { login as m } from './messages';

/** Stores the signed-in user, warns about the default password, and goes to returnTo or /token. */
export function useSignIn() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const { modal } = App.useApp();
  return useCallback(
    (user: LoginUser, returnTo: string | null, fallback = '/token') => {
      const { using_default_password: defaultPassword, ...rest } = user;
      dispatch(signedIn(rest));
      toast.success(intl.formatMessage(m.success));
      // The root account still uses the well-known default password: say so until acknowledged.
      if (defaultPassword) modal.warning({ title: intl.formatMessage(errors.defaultPassword) });
      navigate(safeReturnPath(returnTo) ?? fallback, { replace: true });
    },
    [dispatch, intl, modal, navigate],
  );
}
