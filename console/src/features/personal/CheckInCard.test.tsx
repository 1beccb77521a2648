import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import { CheckInCard } from './CheckInCard';

afterEach(() => vi.unstubAllGlobals());

describe('daily check-in card (spec 1 §4)', () => {
  it('checks in and toasts the dollars gained', async () => {
    const fetchMock = stubApi({
      'GET /api/status': { quota_per_unit: 500000, display_in_currency: true },
      'GET /api/user/check_in_status': { can_check_in: true },
      'POST /api/user/check_in': { quota: 250000 },
    });
    renderWithProviders(<CheckInCard />);
    fireEvent.click(await screen.findByRole('button', { name: 'Check in' }));
    expect(await screen.findByText('Checked in, you gained $0.50')).toBeInTheDocument();
    const calls = fetchMock.mock.calls.map((c) => `${(c[0] as Request).method} ${new URL((c[0] as Request).url).pathname}`);
    expect(calls).toContain('POST /api/user/check_in');
  });

  it('reads "already checked in today" once done', async () => {
    stubApi({ 'GET /api/user/check_in_status': { can_check_in: false } });
    renderWithProviders(<CheckInCard />);
    expect(await screen.findByRole('button', { name: 'Already checked in today' })).toBeDisabled();
  });

  it('says so when the check-in status cannot be loaded', async () => {
    stubApi({});
    renderWithProviders(<CheckInCard />);
    expect(await screen.findByText('Check-in is not available right now')).toBeInTheDocument();
  });
});
