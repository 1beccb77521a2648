import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { User } from '../../api/types';
import { signedIn } from '../../app/sessionSlice';
import { makeStore } from '../../app/store';
import { ROLE } from '../../shared/constants';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import { DrawingLogPage } from './DrawingLogPage';
import { TaskLogPage } from './TaskLogPage';
import type { DrawingJob, TaskJob } from './types';

// antd tables and modals render slowly in jsdom when the machine is busy: wait longer than the defaults.
configure({ asyncUtilTimeout: 10_000 });
vi.setConfig({ testTimeout: 30_000 });

class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

beforeEach(() => window.localStorage.clear());
afterEach(() => vi.unstubAllGlobals());

const EMPTY = { items: [], page: 1, page_size: 100, total: 0 };

function drawing(id: number, patch: Partial<DrawingJob> = {}): DrawingJob {
  return {
    id,
    code: 1,
    user_id: 2,
    action: 'IMAGINE',
    mj_id: `mj-${id}`,
    prompt: `a cat number ${id}`,
    prompt_en: '',
    description: '',
    state: '',
    submit_time: 1_900_000_000_000,
    start_time: 1_900_000_001_000,
    finish_time: 1_900_000_030_000,
    image_url: '',
    status: 'SUCCESS',
    progress: '100%',
    fail_reason: '',
    channel_id: 0,
    quota: 0,
    ...patch,
  };
}

const TASK: TaskJob = {
  id: 5,
  created_at: 1_900_000_000,
  updated_at: 1_900_000_100,
  task_id: 'suno-abc',
  platform: 'suno',
  user_id: 2,
  channel_id: 0,
  quota: 1000,
  action: 'MUSIC',
  status: 'FAILURE',
  fail_reason: 'upstream refused the lyrics',
  submit_time: 1_900_000_000,
  start_time: 1_900_000_005,
  finish_time: 1_900_000_090,
  progress: '100%',
  data: '{"clips":[{"id":"c1"}]}',
};

function renderAs(role: number, ui: React.ReactElement, replies: Record<string, unknown>) {
  const fetchMock = stubApi(replies);
  const store = makeStore();
  store.dispatch(signedIn({ id: 2, username: 'alice', role, group: 'default' } as User));
  renderWithProviders(<MemoryRouter>{ui}</MemoryRouter>, store);
  return fetchMock;
}

/** Chooses the option titled `title` in the antd Select with test id `testId`. */
async function choose(testId: string, title: string) {
  fireEvent.mouseDown(within(screen.getByTestId(testId)).getByRole('combobox'));
  fireEvent.click(await screen.findByTitle(title));
  await waitFor(() => expect(screen.getByTestId(testId)).toHaveTextContent(title));
}

function calls(fetchMock: ReturnType<typeof vi.fn>, path: string): URLSearchParams[] {
  return fetchMock.mock.calls
    .map(([req]) => new URL((req as Request).url))
    .filter((u) => u.pathname === path)
    .map((u) => u.searchParams);
}

describe('task log (spec 3 §2.4)', () => {
  it('a user sees the empty state of their own tasks, without a channel filter, from the start of today', async () => {
    const fetchMock = renderAs(ROLE.user, <TaskLogPage />, { 'GET /api/task/self': EMPTY });
    expect(await screen.findByTestId('task-empty')).toHaveTextContent('No tasks in this time range');
    expect(screen.queryByTestId('task-filter-channel')).toBeNull();
    expect(screen.queryByRole('columnheader', { name: 'Channel' })).toBeNull();
    const [q] = calls(fetchMock, '/api/task/self');
    expect(q.get('p')).toBe('1');
    expect(q.get('page_size')).toBe('100');
    const start = Number(q.get('start_timestamp'));
    expect(start).toBeLessThan(Date.now() / 1000);
    expect(new Date(start * 1000).getHours()).toBe(0);
    expect(calls(fetchMock, '/api/task/')).toHaveLength(0);
  });

  it('an admin reads every task with the channel filter; a task id opens the whole record', async () => {
    const fetchMock = renderAs(ROLE.admin, <TaskLogPage />, {
      'GET /api/task/': { items: [{ ...TASK, channel_id: 9 }], page: 1, page_size: 100, total: 1 },
    });
    expect(await screen.findByTestId('task-status-5')).toHaveTextContent('Failed');
    expect(screen.getByTestId('task-filter-channel')).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Channel' })).toBeInTheDocument();
    expect(screen.getByTestId('task-action-5')).toHaveTextContent('Generate music');
    expect(screen.getByTestId('task-elapsed-5')).toHaveTextContent('90 s');
    expect(screen.getByTestId('task-elapsed-5').className).toMatch(/red/);

    fireEvent.change(screen.getByTestId('task-filter-channel'), { target: { value: '9' } });
    fireEvent.click(screen.getByTestId('task-search'));
    await waitFor(() => expect(calls(fetchMock, '/api/task/').some((q) => q.get('channel_id') === '9')).toBe(true));

    fireEvent.click(screen.getByTestId('task-open-5'));
    const record = await screen.findByTestId('task-record');
    expect(record).toHaveTextContent('suno-abc');
    expect(record).toHaveTextContent('upstream refused the lyrics');
    expect(record).toHaveTextContent('"clips"');
  });

  it('filters by status and platform: both go to the server, and Reset clears them', async () => {
    const fetchMock = renderAs(ROLE.user, <TaskLogPage />, { 'GET /api/task/self': EMPTY });
    await screen.findByTestId('task-empty');
    const [first] = calls(fetchMock, '/api/task/self');
    expect(first.has('status')).toBe(false);
    expect(first.has('platform')).toBe(false);

    // The task log offers its own statuses, not "Submitting" (the empty status).
    fireEvent.mouseDown(within(screen.getByTestId('task-filter-status')).getByRole('combobox'));
    expect(await screen.findByTitle('Queued')).toBeInTheDocument();
    expect(screen.queryByTitle('Submitting')).toBeNull();
    fireEvent.click(screen.getByTitle('Failed'));
    await waitFor(() => expect(screen.getByTestId('task-filter-status')).toHaveTextContent('Failed'));
    await choose('task-filter-platform', 'Suno');
    fireEvent.click(screen.getByTestId('task-search'));
    const both = (q: URLSearchParams) => q.get('status') === 'FAILURE' && q.get('platform') === 'suno';
    await waitFor(() => expect(calls(fetchMock, '/api/task/self').some(both)).toBe(true));

    // Reset clears both choices (the defaults' parameters are checked in query.test.ts).
    fireEvent.click(screen.getByTestId('task-reset'));
    await waitFor(() => expect(screen.getByTestId('task-filter-status')).toHaveTextContent('Status'));
    expect(screen.getByTestId('task-filter-status')).not.toHaveTextContent('Failed');
    expect(screen.getByTestId('task-filter-platform')).toHaveTextContent('Platform');
    expect(screen.getByTestId('task-filter-platform')).not.toHaveTextContent('Suno');
  });

  it('refuses a channel id that is not a number', async () => {
    const fetchMock = renderAs(ROLE.admin, <TaskLogPage />, { 'GET /api/task/': EMPTY });
    await screen.findByTestId('task-empty');
    fireEvent.change(screen.getByTestId('task-filter-channel'), { target: { value: 'abc' } });
    fireEvent.click(screen.getByTestId('task-search'));
    expect(await screen.findByText('The channel ID must be a positive whole number')).toBeInTheDocument();
    expect(calls(fetchMock, '/api/task/')).toHaveLength(1);
  });
});

describe('drawing log (spec 3 §2.3)', () => {
  it('a user sees the empty state of their own drawings in the last 30 days (milliseconds), no notice', async () => {
    const fetchMock = renderAs(ROLE.user, <DrawingLogPage />, {
      'GET /api/mj/self/': EMPTY,
      'GET /api/status': { mj_notify_enabled: false },
    });
    expect(await screen.findByTestId('drawing-empty')).toHaveTextContent('No drawing tasks in this time range');
    expect(screen.queryByTestId('drawing-filter-channel')).toBeNull();
    expect(screen.queryByTestId('drawing-callback-notice')).toBeNull();
    const [q] = calls(fetchMock, '/api/mj/self/');
    const start = Number(q.get('start_timestamp'));
    const end = Number(q.get('end_timestamp'));
    expect(end - start).toBe((2592000 + 3600) * 1000);
    expect(Math.abs(end - (Date.now() + 3600_000))).toBeLessThan(60_000);
  });

  it('an admin sees the notice while callbacks are off, the channel column and the labels; long text opens', async () => {
    renderAs(ROLE.admin, <DrawingLogPage />, {
      'GET /api/mj/': {
        items: [
          drawing(1, {
            channel_id: 4,
            fail_reason: 'banned prompt',
            status: 'FAILURE',
            code: 22,
            finish_time: 1_900_000_075_000,
          }),
        ],
        page: 1,
        page_size: 100,
        total: 1,
      },
      'GET /api/status': { mj_notify_enabled: false },
    });
    expect(await screen.findByTestId('drawing-status-1')).toHaveTextContent('Failed');
    expect(await screen.findByTestId('drawing-callback-notice')).toBeInTheDocument();
    expect(screen.getByTestId('drawing-filter-channel')).toBeInTheDocument();
    expect(screen.getByTestId('drawing-code-1')).toHaveTextContent('Duplicate submission');
    expect(screen.getByTestId('drawing-action-1')).toHaveTextContent('Imagine');
    expect(screen.getByTestId('drawing-elapsed-1')).toHaveTextContent('75 s');
    fireEvent.click(screen.getByTestId('drawing-prompt-1'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('a cat number 1')).toBeInTheDocument();
  });

  it('filters by status: the chosen status goes to the server; drawings have no platform filter', async () => {
    const fetchMock = renderAs(ROLE.user, <DrawingLogPage />, {
      'GET /api/mj/self/': EMPTY,
      'GET /api/status': { mj_notify_enabled: true },
    });
    await screen.findByTestId('drawing-empty');
    expect(screen.queryByTestId('drawing-filter-platform')).toBeNull();
    expect(calls(fetchMock, '/api/mj/self/')[0].has('status')).toBe(false);

    await choose('drawing-filter-status', 'Succeeded');
    fireEvent.click(screen.getByTestId('drawing-search'));
    await waitFor(() => expect(calls(fetchMock, '/api/mj/self/').some((q) => q.get('status') === 'SUCCESS')).toBe(true));
    expect(calls(fetchMock, '/api/mj/self/').every((q) => !q.has('platform'))).toBe(true);
  });

  it('no notice once callbacks are on', async () => {
    renderAs(ROLE.admin, <DrawingLogPage />, { 'GET /api/mj/': EMPTY, 'GET /api/status': { mj_notify_enabled: true } });
    await screen.findByTestId('drawing-empty');
    await waitFor(() => expect(screen.queryByTestId('drawing-callback-notice')).toBeNull());
  });

  it('pages 100 cached drawings by 10 and fetches the next server page on the last cached page', async () => {
    const fetchMock = vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      if (url.pathname !== '/api/mj/self/') return new Response('{}', { status: 404 });
      const p = Number(url.searchParams.get('p'));
      const ids = p === 1 ? Array.from({ length: 100 }, (_, i) => i + 1) : Array.from({ length: 20 }, (_, i) => i + 101);
      const data = { items: ids.map((id) => drawing(id)), page: p, page_size: 100, total: 120 };
      return new Response(JSON.stringify({ success: true, message: '', data }), {
        headers: { 'Content-Type': 'application/json' },
      });
    });
    vi.stubGlobal('fetch', fetchMock);
    const store = makeStore();
    store.dispatch(signedIn({ id: 2, username: 'alice', role: ROLE.user } as User));
    renderWithProviders(
      <MemoryRouter>
        <DrawingLogPage />
      </MemoryRouter>,
      store,
    );
    expect(await screen.findByTestId('drawing-status-1')).toBeInTheDocument();
    expect(calls(fetchMock, '/api/mj/self/').map((q) => q.get('p'))).toEqual(['1']);
    // The table counts the server's total: 12 pages of 10.
    expect(screen.getByTitle('12')).toBeInTheDocument();
    for (let i = 0; i < 8; i++) fireEvent.click(screen.getByTitle('Next Page'));
    expect(await screen.findByTestId('drawing-status-81')).toBeInTheDocument();
    expect(calls(fetchMock, '/api/mj/self/')).toHaveLength(1);
    fireEvent.click(screen.getByTitle('Next Page'));
    expect(await screen.findByTestId('drawing-status-91')).toBeInTheDocument();
    await waitFor(() => expect(calls(fetchMock, '/api/mj/self/').map((q) => q.get('p'))).toEqual(['1', '2']));
    fireEvent.click(screen.getByTitle('12'));
    expect(await screen.findByTestId('drawing-status-111')).toBeInTheDocument();
    expect(calls(fetchMock, '/api/mj/self/')).toHaveLength(2);
  });
});
