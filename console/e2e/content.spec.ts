/**
 * The operator's About and home page content (issue 16) against the real control plane: set as
 * root through the options API, read by a signed-out visitor from the public endpoints. Markdown
 * renders with its HTML sanitized (an `onerror` handler never runs); an address is framed in a
 * sandbox. Screenshots in dark mode and at phone width. The options are emptied at the end.
 */
import { expect, test, type Page } from '@playwright/test';
import { login, setLanguage, setOptions, SHOTS, visitorPage } from './helpers';

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
const LONG = Array.from({ length: 40 }, (_, i) => `Paragraph ${i + 1} of a long text that scrolls.`).join('\n\n');

const pwned = (p: Page) => p.evaluate(() => (window as unknown as { __pwned?: number }).__pwned);

test.afterEach(async ({ page }) => {
  await setOptions(page, { About: '', HomePageContent: '' });
});

test('About: markdown sanitized, a URL framed in a sandbox, a default when empty', async ({ page, browser }) => {
  await setLanguage(page, 'en');
  await login(page);
  await setOptions(page, {
    About: `# About this gateway\n\nRead [the docs](https://docs.example/) or see \`the code\`.\n\n${HOSTILE}\n\n<a href="javascript:window.__pwned=3">bad link</a>\n\n${LONG}`,
  });
  const { visitor, guest } = await visitorPage(browser);
  try {
    await guest.goto('/about');
    const box = guest.getByTestId('about-markdown');
    await expect(box.getByRole('heading', { name: 'About this gateway' })).toBeVisible();
    const link = box.getByRole('link', { name: 'the docs' });
    await expect(link).toHaveAttribute('href', 'https://docs.example/');
    await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    await expect(box.locator('code')).toHaveText('the code');
    await expect(box.locator('script, [onerror], [href^="javascript"]')).toHaveCount(0);
    await box.getByText('bad link').click();
    await guest.waitForLoadState('networkidle');
    expect(await pwned(guest)).toBeUndefined();
    await guest.screenshot({ path: `${SHOTS}/en/about.png`, fullPage: true });
    await guest.getByTestId('theme-toggle').click();
    await guest.screenshot({ path: `${SHOTS}/en/about-dark.png`, fullPage: true });
    await guest.setViewportSize({ width: 390, height: 800 });
    await expect(box.getByRole('heading', { name: 'About this gateway' })).toBeVisible();
    // Nothing wider than the phone: no sideways scrolling (once the layout has taken the new width).
    await expect
      .poll(() => guest.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    await guest.screenshot({ path: `${SHOTS}/en/about-mobile.png`, fullPage: true });

    await setOptions(page, { About: 'https://about.example/page' });
    await guest.reload();
    const frame = guest.getByTestId('about-frame');
    await expect(frame).toHaveAttribute('src', 'https://about.example/page');
    const sandbox = await frame.getAttribute('sandbox');
    expect(sandbox).not.toBeNull();
    expect(sandbox).not.toContain('allow-same-origin');
    await expect(frame).toHaveAttribute('referrerpolicy', 'no-referrer');

    await setOptions(page, { About: '' });
    await guest.reload();
    await expect(guest.getByTestId('about-empty')).toContainText('System settings');
  } finally {
    await visitor.close();
  }
});

test('Home: the operator content replaces the landing page, sanitized; a URL is framed', async ({ page, browser }) => {
  await setLanguage(page, 'en');
  await login(page);
  await setOptions(page, { HomePageContent: `## Welcome, operators\n\n${HOSTILE}` });
  const { visitor, guest } = await visitorPage(browser);
  try {
    await guest.goto('/');
    const box = guest.getByTestId('home-markdown');
    await expect(box.getByRole('heading', { name: 'Welcome, operators' })).toBeVisible();
    await expect(box.locator('script, [onerror]')).toHaveCount(0);
    await guest.waitForLoadState('networkidle');
    expect(await pwned(guest)).toBeUndefined();

    await setOptions(page, { HomePageContent: 'https://home.example/' });
    await guest.reload();
    const frame = guest.getByTestId('home-frame');
    await expect(frame).toHaveAttribute('src', 'https://home.example/');
    expect(await frame.getAttribute('sandbox')).not.toContain('allow-same-origin');
    await guest.setViewportSize({ width: 390, height: 800 });
    await guest.screenshot({ path: `${SHOTS}/en/home-frame-mobile.png` });

    await setOptions(page, { HomePageContent: '' });
    await guest.reload();
    await expect(guest.getByRole('button', { name: 'Open the console' })).toBeVisible();
    await expect(guest.getByTestId('home-content')).toHaveCount(0);
  } finally {
    await visitor.close();
  }
});
