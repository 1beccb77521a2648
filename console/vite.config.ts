/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The control plane serves the built console; in development vite proxies /api to it.
const apiTarget = process.env.CONSOLE_API_TARGET ?? 'http://127.0.0.1:3000';
// The playground posts to the gateway's /pg/chat/completions (same origin behind the gateway).
const gatewayTarget = process.env.CONSOLE_GATEWAY_TARGET ?? apiTarget;

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': { target: apiTarget, changeOrigin: false },
      '/pg': { target: gatewayTarget, changeOrigin: false },
    },
  },
  build: {
    outDir: 'dist',
    chunkSizeWarningLimit: 2000,
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
  },
});
