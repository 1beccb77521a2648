import { sidebar } from '../layout/messages';
import { NotAvailablePage } from '../placeholder/NotAvailablePage';

/** /topup: the user's wallet (spec 2 §2.7). Until this screen is built, its route says so and shows no data. */
export function WalletPage() {
  return <NotAvailablePage name={sidebar.wallet} />;
}
