import { sidebar } from '../layout/messages';
import { NotAvailablePage } from '../placeholder/NotAvailablePage';

/** /redemption: redemption codes (spec 2 §2.6). Until this screen is built, its route says so and shows no data. */
export function RedemptionsPage() {
  return <NotAvailablePage name={sidebar.redemption} />;
}
