import { Result } from 'antd';
import type { ReactNode } from 'react';
import { useIntl } from 'react-intl';
import { Navigate, useLocation } from 'react-router';
import { isAdmin, isRoot } from '../shared/constants';
import { pages } from '../features/layout/messages';
import { useAppSelector, useCurrentUser } from './hooks';
import { expiredLoginPath } from './navigation';

/** Who may open a route: declared per route in the route table. */
export type GuardLevel = 'public' | 'user' | 'admin' | 'root';

export function allowed(level: GuardLevel, role: number | undefined): boolean {
  switch (level) {
    case 'public':
    case 'user':
      return true;
    case 'admin':
      return isAdmin(role);
    case 'root':
      return isRoot(role);
  }
}

export function Guard({ level, children }: { level: GuardLevel; children: ReactNode }) {
  const intl = useIntl();
  const user = useCurrentUser();
  const ended = useAppSelector((s) => s.session.ended);
  const location = useLocation();
  if (level === 'public') return children;
  if (!user) {
    const returnTo = encodeURIComponent(location.pathname + location.search);
    const to = { expired: expiredLoginPath(location), signedOut: '/login', no: `/login?returnTo=${returnTo}` }[ended];
    return <Navigate to={to} replace />;
  }
  if (!allowed(level, user.role)) {
    return (
      <Result status="403" title={intl.formatMessage(pages.forbiddenTitle)} subTitle={intl.formatMessage(pages.forbiddenText)} />
    );
  }
  return children;
}
