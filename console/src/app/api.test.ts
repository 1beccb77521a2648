import { afterEach, describe, expect, it, vi } from 'vitest';
import { setNavigator } from './navigation';
import { signedIn } from './sessionSlice';
import { makeStore } from './store';
import { statusApi } from '../features/status/api';
import { usersApi } from '../features/users/api';
import type { User } from '../api/types';

function reply(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

afterEach(() => vi.unstubAllGlobals());

describe('API base query', () => {
  it('sends New-Api-User and Accept-Language, unwraps the envelope', async () => {
    const fetchMock = vi.fn(async () =>
      reply(200, { success: true, message: '', data: { items: [], page: 1, page_size: 10, total: 0 } }),
    );
    vi.stubGlobal('fetch', fetchMock);
    const store = makeStore();
    store.dispatch(signedIn({ id: 7, username: 'root', role: 100 } as User));
    const res = await store.dispatch(usersApi.endpoints.listUsers.initiate({ keyword: '', group: '', p: 1, pageSize: 10 }));
    expect(res.data).toEqual({ items: [], page: 1, page_size: 10, total: 0 });
    const req = (fetchMock.mock.calls[0] as unknown as [Request])[0];
    expect(req.url).toMatch(/\/api\/user\/\?p=1&page_size=10$/);
    expect(req.headers.get('New-Api-User')).toBe('7');
    expect(req.headers.get('Accept-Language')).toBeTruthy();
  });

  it('turns success false into a business error with the server message', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => reply(200, { success: false, message: 'nope', data: null })),
    );
    const store = makeStore();
    const res = await store.dispatch(statusApi.endpoints.getStatus.initiate());
    expect(res.error).toEqual({ status: 'BUSINESS', message: 'nope' });
  });

  it('on 401 signs out and goes to login with expired and returnTo', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => reply(401, { success: false, message: 'unauthorized', data: null })),
    );
    const nav = vi.fn();
    setNavigator(nav);
    window.history.pushState({}, '', '/user?p=2');
    const store = makeStore();
    store.dispatch(signedIn({ id: 1, username: 'a', role: 1 } as User));
    await store.dispatch(usersApi.endpoints.getGroups.initiate());
    expect(store.getState().session.user).toBeNull();
    expect(nav).toHaveBeenCalledWith('/login?expired=true&returnTo=%2Fuser%3Fp%3D2', { replace: true });
  });
});

describe('status cache', () => {
  it('applies the server default sidebar state once, then keeps the stored choice', async () => {
    window.localStorage.clear();
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        reply(200, { success: true, message: '', data: { default_collapse_sidebar: true, footer_html: '<b>x</b>' } }),
      ),
    );
    const store = makeStore();
    await store.dispatch(statusApi.endpoints.getStatus.initiate());
    expect(store.getState().ui.sidebarCollapsed).toBe(true);
    expect(window.localStorage.getItem('footer_html')).toBe('<b>x</b>');

    window.localStorage.setItem('default_collapse_sidebar', 'false');
    const again = makeStore();
    await again.dispatch(statusApi.endpoints.getStatus.initiate());
    expect(again.getState().ui.sidebarCollapsed).toBe(false);
  });
});
