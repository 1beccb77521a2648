/**
 * Starts the real control plane for the e2e run:
 * - binary: $CONTROL_PLANE_BIN, else `cargo build -p control-plane` (a no-op when up to date)
 *   into $CARGO_TARGET_DIR (default <repo>/target);
 * - a free loopback port and a fresh temporary data dir (SQLite);
 * - serves ../dist (run `npm run build` first; `npm run e2e` does).
 * Exports E2E_BASE_URL for the tests; the returned function stops the server.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(consoleDir, '..');

function controlPlaneBinary(): string {
  if (process.env.CONTROL_PLANE_BIN) return process.env.CONTROL_PLANE_BIN;
  const targetDir = process.env.CARGO_TARGET_DIR ?? path.join(repoRoot, 'target');
  execFileSync('cargo', ['build', '-p', 'control-plane'], {
    cwd: repoRoot,
    stdio: 'inherit',
    env: { ...process.env, CARGO_TARGET_DIR: targetDir },
  });
  return path.join(targetDir, 'debug', 'control-plane');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/api/status`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`control plane did not answer at ${url} within ${ms} ms`);
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dist = path.join(consoleDir, 'dist');
  if (!existsSync(path.join(dist, 'index.html'))) throw new Error('console/dist is missing: run `npm run build` first');
  const bin = controlPlaneBinary();
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'console-e2e-'));
  const log = openSync(path.join(consoleDir, 'test-results-control-plane.log'), 'w');
  // Always a fresh embedded SQLite database: never the DATABASE_URL the Rust tests use.
  const env = { ...process.env };
  delete env.DATABASE_URL;
  const child = spawn(bin, ['--listen', `127.0.0.1:${port}`, '--data-dir', dataDir, '--console-dir', dist], {
    stdio: ['ignore', log, log],
    env,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntilUp(baseUrl, 30_000);
  } catch (e) {
    await stop();
    throw e;
  }
  process.env.E2E_BASE_URL = baseUrl;
  return stop;
}
