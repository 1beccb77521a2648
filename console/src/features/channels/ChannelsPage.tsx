import { sidebar } from '../layout/messages';
import { NotAvailablePage } from '../placeholder/NotAvailablePage';

/** /channel, /channel/add, /channel/edit/:id: channel management (spec 2 §2.4). Until this screen is built, its route says so and shows no data. */
export function ChannelsPage() {
  return <NotAvailablePage name={sidebar.channels} />;
}
