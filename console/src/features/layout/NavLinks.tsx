import { Button, Flex } from 'antd';
import { useIntl } from 'react-intl';
import { Link } from 'react-router';
import { useCurrentUser } from '../../app/hooks';
import { useStatus } from '../status/useStatus';
import { nav as m } from './messages';

/** Home, console, pricing, docs (when configured) and about: in the top bar, or the mobile drawer. */
export function NavLinks({ vertical = false, onNavigate }: { vertical?: boolean; onNavigate?: () => void }) {
  const intl = useIntl();
  const user = useCurrentUser();
  const { status } = useStatus();
  const links = [
    { to: '/', label: m.home },
    { to: user ? '/token' : '/login', label: m.console },
    { to: '/pricing', label: m.pricing },
    { to: '/about', label: m.about },
  ];
  const button = (text: string) => (
    <Button type="text" block={vertical} style={vertical ? { justifyContent: 'flex-start' } : undefined}>
      {text}
    </Button>
  );
  return (
    <Flex gap={4} vertical={vertical} style={vertical ? undefined : { flex: 1 }} component="nav" data-testid="nav-links">
      {links.map((l) => (
        <Link key={l.label.id} to={l.to} onClick={onNavigate}>
          {button(intl.formatMessage(l.label))}
        </Link>
      ))}
      {status.docs_link && (
        <a href={status.docs_link} target="_blank" rel="noreferrer">
          {button(intl.formatMessage(m.docs))}
        </a>
      )}
    </Flex>
  );
}
