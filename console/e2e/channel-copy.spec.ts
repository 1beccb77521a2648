/** Copying a channel from its row: the copy keeps keys and settings, named with a suffix. */
import { expect, test } from '@playwright/test';
import { ensureMockChannel } from './gateway';
import { confirmPopover, login, setLanguage } from './helpers';

const SOURCE = 'e2e-copy-source';
const HEADERS = { 'New-Api-User': '1' };

interface ChannelRow {
  id: number;
  name: string;
  models: string;
  group: string;
  key_count: number;
}

async function channelsNamed(page: import('@playwright/test').Page, keyword: string): Promise<ChannelRow[]> {
  const res = await page.request.get('/api/channel/search', { params: { keyword }, headers: HEADERS });
  const body = (await res.json()) as { data: { items: ChannelRow[] } };
  return body.data.items;
}

test('copy a channel from the table', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  await ensureMockChannel(page, SOURCE, ['gpt-4o-mini', 'e2e-copy-model']);
  const [source] = await channelsNamed(page, SOURCE);

  await page.goto('/channel');
  await page.getByTestId('channels-keyword').fill(SOURCE);
  await page.getByTestId('channels-search').click();
  await page.getByTestId(`channel-copy-${source.id}`).click();
  await confirmPopover(page);
  await expect(page.getByText(`Channel copied as ${SOURCE}_copy`)).toBeVisible();

  const copy = (await channelsNamed(page, `${SOURCE}_copy`)).find((c) => c.name === `${SOURCE}_copy`);
  expect(copy).toMatchObject({ models: source.models, group: source.group, key_count: source.key_count });
  await expect(page.getByTestId(`channel-name-${copy?.id}`)).toBeVisible();

  // Clean up both, so other specs see the channels they made.
  for (const id of [source.id, copy?.id]) {
    const r = await (await page.request.delete(`/api/channel/${id}/`, { headers: HEADERS })).json();
    expect(r.success).toBe(true);
  }
});
