import { screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { User } from '../../api/types';
import { signedIn } from '../../app/sessionSlice';
import { makeStore } from '../../app/store';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import { AboutPage } from './AboutPage';
import { FRAME_SANDBOX } from './ContentView';
import { HomeContentPage } from './HomeContentPage';

beforeEach(() => window.localStorage.clear());
afterEach(() => vi.unstubAllGlobals());

const STATUS = { setup: true, system_name: 'Test Gateway', notice: 'Heads up' };

describe('About page', () => {
  it('renders the markdown sanitized', async () => {
    stubApi({ 'GET /api/about': '## Who we are\n\n<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>' });
    renderWithProviders(
      <MemoryRouter>
        <AboutPage />
      </MemoryRouter>,
    );
    expect(await screen.findByRole('heading', { name: 'Who we are' })).toBeInTheDocument();
    const box = screen.getByTestId('about-markdown');
    expect(box.querySelector('script, [onerror]')).toBeNull();
    expect(box.querySelector('img')).not.toBeNull();
  });

  it('frames a URL in a sandbox without same-origin rights', async () => {
    stubApi({ 'GET /api/about': 'https://about.example/' });
    renderWithProviders(
      <MemoryRouter>
        <AboutPage />
      </MemoryRouter>,
    );
    const frame = await screen.findByTestId('about-frame');
    expect(frame).toHaveAttribute('src', 'https://about.example/');
    expect(frame).toHaveAttribute('sandbox', FRAME_SANDBOX);
    expect(frame.getAttribute('sandbox')).not.toContain('allow-same-origin');
    expect(frame).toHaveAttribute('referrerpolicy', 'no-referrer');
  });

  it('explains where the text is set when there is none, with a settings link for an admin', async () => {
    stubApi({ 'GET /api/about': '' });
    const store = makeStore();
    store.dispatch(signedIn({ id: 1, username: 'root', role: 100 } as User));
    renderWithProviders(
      <MemoryRouter>
        <AboutPage />
      </MemoryRouter>,
      store,
    );
    expect(await screen.findByTestId('about-empty')).toHaveTextContent('System settings');
    expect(screen.getByRole('link', { name: 'Open settings' })).toHaveAttribute('href', '/setting?tab=other');
  });

  it('has a Chinese default too, without a settings link for a visitor', async () => {
    stubApi({ 'GET /api/about': '' });
    renderWithProviders(
      <MemoryRouter>
        <AboutPage />
      </MemoryRouter>,
      makeStore(),
      'zh-CN',
    );
    expect(await screen.findByTestId('about-empty')).toHaveTextContent('系统设置');
    expect(screen.queryByRole('link')).toBeNull();
  });
});

describe('home page', () => {
  it('shows the built-in landing page without content', async () => {
    stubApi({ 'GET /api/home_page_content': '', 'GET /api/status': STATUS });
    renderWithProviders(
      <MemoryRouter>
        <HomeContentPage />
      </MemoryRouter>,
    );
    expect(await screen.findByRole('button', { name: 'Open the console' })).toBeInTheDocument();
    expect(screen.queryByTestId('home-content')).toBeNull();
  });

  it('shows the operator markdown under the notice', async () => {
    stubApi({ 'GET /api/home_page_content': '# Welcome aboard', 'GET /api/status': STATUS });
    renderWithProviders(
      <MemoryRouter>
        <HomeContentPage />
      </MemoryRouter>,
    );
    expect(await screen.findByRole('heading', { name: 'Welcome aboard' })).toBeInTheDocument();
    expect(await screen.findByTestId('notice')).toHaveTextContent('Heads up');
    expect(screen.queryByRole('button', { name: 'Open the console' })).toBeNull();
  });

  it('frames a URL', async () => {
    stubApi({ 'GET /api/home_page_content': 'https://home.example/', 'GET /api/status': STATUS });
    renderWithProviders(
      <MemoryRouter>
        <HomeContentPage />
      </MemoryRouter>,
    );
    expect(await screen.findByTestId('home-frame')).toHaveAttribute('sandbox', FRAME_SANDBOX);
  });
});
