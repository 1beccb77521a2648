/** Rate-limit and model-related settings tabs: each save sends only the keys that changed. */
import { expect, test, type Page } from '@playwright/test';
import { login, setLanguage, setOptions, SHOTS } from './helpers';

/** Records the keys of every `PUT /api/option/` the page sends. */
function recordSavedKeys(page: Page): string[] {
  const keys: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'PUT' && new URL(r.url()).pathname === '/api/option/')
      keys.push((r.postDataJSON() as { key: string }).key);
  });
  return keys;
}

async function optionValues(page: Page, keys: string[]): Promise<string[]> {
  const body = (await (await page.request.get('/api/option/', { headers: { 'New-Api-User': '1' } })).json()) as {
    data: { key: string; value: string }[];
  };
  return keys.map((k) => body.data.find((o) => o.key === k)?.value ?? '');
}

test('rate-limit tab: defaults shown, only the changed keys saved, flag first', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  const saved = recordSavedKeys(page);
  await page.goto('/setting?tab=rateLimit');
  const panel = page.getByTestId('panel-rateLimit');
  await expect(page.getByTestId('option-ModelRequestRateLimitDurationMinutes')).toHaveValue('1');
  await expect(page.getByTestId('option-ModelRequestRateLimitSuccessCount')).toHaveValue('1000');
  await page.getByTestId('save-rateLimit').click();
  await expect(page.getByText('You seem to have changed nothing')).toBeVisible();
  expect(saved).toEqual([]);
  try {
    await page.getByTestId('option-ModelRequestRateLimitEnabled').click();
    await page.getByTestId('option-ModelRequestRateLimitDurationMinutes').fill('3');
    await page.screenshot({ path: `${SHOTS}/en/settings-rate-limit.png`, fullPage: true });
    await page.getByTestId('save-rateLimit').click();
    await expect(page.getByText('Settings saved')).toBeVisible();
    expect(saved).toEqual(['ModelRequestRateLimitEnabled', 'ModelRequestRateLimitDurationMinutes']);
    expect(
      await optionValues(page, [
        'ModelRequestRateLimitEnabled',
        'ModelRequestRateLimitDurationMinutes',
        'ModelRequestRateLimitCount',
        'ModelRequestRateLimitSuccessCount',
      ]),
    ).toEqual(['true', '3', '0', '1000']);
    await expect(panel.getByTestId('option-ModelRequestRateLimitEnabled')).toBeChecked();
  } finally {
    await setOptions(page, { ModelRequestRateLimitEnabled: 'false', ModelRequestRateLimitDurationMinutes: '1' });
  }
});

test('model tab: ping interval follows its switch; Gemini, Claude and global panels save only changed keys', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  const saved = recordSavedKeys(page);
  await page.goto('/setting?tab=model');
  const seconds = page.getByTestId('option-general_setting.ping_interval_seconds');
  await expect(seconds).toHaveValue('60');
  await expect(seconds).toBeDisabled();
  await expect(page.getByTestId('option-gemini.thinking_adapter_budget_tokens_percentage')).toHaveValue('0.6');
  await expect(page.getByTestId('option-claude.thinking_adapter_budget_tokens_percentage')).toHaveValue('0.8');
  await expect(page.getByTestId('option-claude.thinking_adapter_enabled')).toBeChecked();
  try {
    await page.getByTestId('option-general_setting.ping_interval_enabled').click();
    await expect(seconds).toBeEnabled();
    await seconds.fill('15');
    await page.getByTestId('save-global').click();
    await expect(page.getByText('Settings saved')).toBeVisible();
    expect(saved.splice(0)).toEqual(['general_setting.ping_interval_enabled', 'general_setting.ping_interval_seconds']);
    // The next save's toast must be its own, not this one still on screen.
    await expect(page.getByText('Settings saved')).toHaveCount(0);

    // A JSON setting must parse; the example button fills a valid one.
    const maxTokens = page.getByTestId('option-claude.default_max_tokens');
    await maxTokens.fill('{"default": 8192,');
    await page.getByTestId('save-claude').click();
    await expect(page.getByText('Claude default max tokens per model (JSON) is not a valid JSON string')).toBeVisible();
    expect(saved).toEqual([]);
    await page.getByTestId('example-claude.default_max_tokens').click();
    await expect(maxTokens).toHaveValue(/"claude-3-haiku-20240307": 4096/);
    await page.getByTestId('option-claude.thinking_adapter_budget_tokens_percentage').fill('0.5');
    await page.screenshot({ path: `${SHOTS}/en/settings-model.png`, fullPage: true });
    await page.getByTestId('save-claude').click();
    await expect(page.getByText('Settings saved')).toBeVisible();
    expect(saved.splice(0).sort()).toEqual(['claude.default_max_tokens', 'claude.thinking_adapter_budget_tokens_percentage']);
    expect(
      await optionValues(page, ['claude.thinking_adapter_budget_tokens_percentage', 'general_setting.ping_interval_seconds']),
    ).toEqual(['0.5', '15']);
  } finally {
    await setOptions(page, {
      'general_setting.ping_interval_enabled': 'false',
      'general_setting.ping_interval_seconds': '60',
      'claude.default_max_tokens': '{"default":8192}',
      'claude.thinking_adapter_budget_tokens_percentage': '0.8',
    });
  }
});
