import { defineConfig } from '@playwright/test';

/**
 * E2E against the REAL control plane: e2e/global-setup.ts builds it when needed, starts it
 * on a free port with a fresh data dir serving console/dist, and exports E2E_BASE_URL.
 * Debian's chromium is used; no browser is downloaded.
 */
export default defineConfig({
  testDir: './e2e',
  outputDir: './test-results',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['html', { outputFolder: 'playwright-report', open: 'never' }]],
  // First-run setup creates the root account every other file signs in with.
  projects: [
    { name: 'setup', testMatch: /setup\.spec\.ts$/ },
    { name: 'console', testIgnore: /setup\.spec\.ts$/, dependencies: ['setup'] },
  ],
  use: {
    baseURL: process.env.E2E_BASE_URL,
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
