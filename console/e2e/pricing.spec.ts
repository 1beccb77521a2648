/**
 * The public pricing page against the real control plane: a model served by a channel and
 * priced through the settings API (a ratio, and a fixed per-call price) shows its prices to a
 * signed-out visitor; the search narrows the list. Screenshots in dark mode and at phone width.
 */
import { expect, test, type Page } from '@playwright/test';
import { ensureMockChannel } from './gateway';
import { login, setLanguage, setOptions, SHOTS, visitorPage } from './helpers';

const RUN = Date.now() % 1_000_000;
const RATIO_MODEL = `e2e-price-ratio-${RUN}`;
const FIXED_MODEL = `e2e-price-fixed-${RUN}`;
const MODEL_RATIO = 0.5;
const COMPLETION_RATIO = 3;
const MODEL_PRICE = 0.05;

/** Root is the first account (user id 1); REST calls name it in New-Api-User. */
const ROOT_HEADERS = { 'New-Api-User': '1' };

/** A JSON-map option merged with `entries` (other models' prices stay). */
async function mergeOption(page: Page, key: string, entries: Record<string, number>): Promise<string> {
  const res = (await (await page.request.get('/api/option/', { headers: ROOT_HEADERS })).json()) as {
    data: { key: string; value: string }[];
  };
  const current = JSON.parse(res.data.find((o) => o.key === key)?.value || '{}') as Record<string, number>;
  return JSON.stringify({ ...current, ...entries });
}

interface Display {
  qpu: number;
  currency: boolean;
  groupRatio: number;
}

/** The visitor's display settings and the default group's ratio, as the page reads them. */
async function displayOf(guest: Page): Promise<Display> {
  const status = (await (await guest.request.get('/api/status')).json()) as {
    data: { quota_per_unit: number; display_in_currency: boolean };
  };
  const pricing = (await (await guest.request.get('/api/pricing')).json()) as { group_ratio: Record<string, number> };
  return {
    qpu: status.data.quota_per_unit || 500000,
    currency: status.data.display_in_currency,
    groupRatio: pricing.group_ratio.default ?? 1,
  };
}

/** The price text the page writes for an amount (dollars, or quota when currency display is off). */
function amount(d: Display, dollars: number): string {
  if (d.currency) {
    const trimmed = parseFloat(dollars.toFixed(6));
    return `$${(String(trimmed).split('.')[1] ?? '').length < 2 ? trimmed.toFixed(2) : trimmed}`;
  }
  return `${(dollars * d.qpu).toLocaleString('en-US', { maximumFractionDigits: 2 })} quota`;
}

test('a signed-out visitor sees the prices set in the settings and can search', async ({ page, browser }) => {
  await setLanguage(page, 'en');
  await login(page);
  await ensureMockChannel(page, `e2e-pricing-${RUN}`, [RATIO_MODEL, FIXED_MODEL]);
  await setOptions(page, {
    ModelRatio: await mergeOption(page, 'ModelRatio', { [RATIO_MODEL]: MODEL_RATIO }),
    CompletionRatio: await mergeOption(page, 'CompletionRatio', { [RATIO_MODEL]: COMPLETION_RATIO }),
    ModelPrice: await mergeOption(page, 'ModelPrice', { [FIXED_MODEL]: MODEL_PRICE }),
  });

  const { visitor, guest } = await visitorPage(browser);
  try {
    const d = await displayOf(guest);
    await guest.goto('/pricing');
    await expect(guest.getByTestId('pricing-signed-out')).toBeVisible();
    const ratioRow = guest.locator('tr', { has: guest.getByText(RATIO_MODEL, { exact: true }) });
    const fixedRow = guest.locator('tr', { has: guest.getByText(FIXED_MODEL, { exact: true }) });
    // Per token: model ratio × group ratio quota per token, as dollars per 1M tokens.
    const input = (MODEL_RATIO * d.groupRatio * 1e6) / d.qpu;
    await expect(ratioRow.getByTestId('pricing-price')).toContainText(`Input ${amount(d, input)} / 1M tokens`);
    await expect(ratioRow.getByTestId('pricing-price')).toContainText(
      `Output ${amount(d, input * COMPLETION_RATIO)} / 1M tokens`,
    );
    await expect(ratioRow).toContainText('Per token');
    await expect(fixedRow.getByTestId('pricing-price')).toContainText(`${amount(d, MODEL_PRICE * d.groupRatio)} / call`);
    await expect(fixedRow).toContainText('Per call');
    await expect(ratioRow.getByTestId('pricing-available')).toBeVisible();

    // The search narrows the list to the one model.
    const total = await guest.getByTestId('pricing-model-name').count();
    expect(total).toBeGreaterThanOrEqual(2);
    await guest.getByTestId('pricing-search').locator('input').fill(RATIO_MODEL);
    await expect(guest.getByTestId('pricing-model-name')).toHaveCount(1);
    await expect(guest.getByTestId('pricing-model-name')).toHaveText(RATIO_MODEL);
    await expect(guest.getByTestId('pricing-count')).toHaveText(`1 of ${total} models`);
    await guest.getByTestId('pricing-search').locator('input').fill('no-such-model-anywhere');
    await expect(guest.getByText('No model matches the search and filters')).toBeVisible();
    await guest.getByTestId('pricing-search').locator('input').fill(`price ${RUN}`);
    await expect(guest.getByTestId('pricing-model-name')).toHaveCount(2);

    await guest.screenshot({ path: `${SHOTS}/en/pricing-visitor.png`, fullPage: true });
    await guest.getByTestId('theme-toggle').click();
    await guest.screenshot({ path: `${SHOTS}/en/pricing-dark.png`, fullPage: true });
    await guest.setViewportSize({ width: 390, height: 800 });
    await expect(guest.getByTestId('pricing-search')).toBeVisible();
    await guest.screenshot({ path: `${SHOTS}/en/pricing-mobile.png`, fullPage: true });
  } finally {
    await visitor.close();
  }
});

test('the pricing page in Chinese', async ({ browser }) => {
  const { visitor, guest } = await visitorPage(browser);
  try {
    await setLanguage(guest, 'zh-CN');
    await guest.goto('/pricing');
    await expect(guest.getByText('模型价格').first()).toBeVisible();
    await expect(guest.getByTestId('pricing-signed-out')).toContainText('您尚未登录');
    await guest.screenshot({ path: `${SHOTS}/zh-CN/pricing-visitor.png`, fullPage: true });
  } finally {
    await visitor.close();
  }
});
