import { sidebar } from '../layout/messages';
import { NotAvailablePage } from '../placeholder/NotAvailablePage';

/** /token: the user's API tokens (spec 2 §2.5). Until this screen is built, its route says so and shows no data. */
export function TokensPage() {
  return <NotAvailablePage name={sidebar.tokens} />;
}
