import { screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { User } from '../../api/types';
import { signedIn } from '../../app/sessionSlice';
import { makeStore } from '../../app/store';
import { ROLE } from '../../shared/constants';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import { SettingsPage } from './SettingsPage';

// antd's table measures itself; jsdom has no ResizeObserver.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

const OPTIONS = [
  { key: 'ModelRatio', value: '{"gpt-4o":1.25}' },
  { key: 'CompletionRatio', value: '{"gpt-4o":4}' },
  { key: 'ModelPrice', value: '{}' },
  { key: 'ModelRequestRateLimitDurationMinutes', value: '1' },
];

afterEach(() => vi.unstubAllGlobals());

function renderAs(role: number, path: string) {
  const fetchMock = stubApi({ 'GET /api/option/': OPTIONS, 'GET /api/models/unset': [] });
  const store = makeStore();
  store.dispatch(signedIn({ id: 1, username: 'root', role } as User));
  renderWithProviders(
    <MemoryRouter initialEntries={[path]}>
      <SettingsPage />
    </MemoryRouter>,
    store,
  );
  return fetchMock;
}

describe('settings page (spec 2 §2.1)', () => {
  it('shows no tabs and loads no options for an admin who is not root', () => {
    const fetchMock = renderAs(ROLE.admin, '/setting');
    expect(screen.queryByRole('tab')).toBeNull();
    expect(screen.getByText('Only the super administrator can change the settings.')).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('opens the operation sub-tab named by ?sub=', async () => {
    renderAs(ROLE.root, '/setting?tab=operation&sub=visual');
    expect(await screen.findByTestId('ratio-row-gpt-4o')).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Visual ratio editor', selected: true })).toBeTruthy();
  });

  it('opens the rate-limit tab with its saved values', async () => {
    renderAs(ROLE.root, '/setting?tab=rateLimit');
    const duration = (await screen.findByTestId('option-ModelRequestRateLimitDurationMinutes')) as HTMLInputElement;
    await waitFor(() => expect(duration.value).toBe('1'));
  });
});
