/**
 * Starts the real system for the e2e run: the mock upstream provider, the control plane on
 * a fresh SQLite data dir serving ../dist, and one gateway that takes its config from that
 * control plane over gRPC and reports usage to it.
 * - binaries: $CONTROL_PLANE_BIN / $GATEWAY_BIN / $MOCK_PROVIDER_BIN, else one
 *   `cargo build` of the three packages (a no-op when up to date) into $CARGO_TARGET_DIR
 *   (default <repo>/target);
 * - free loopback ports; run `npm run build` first (`npm run e2e` does).
 * Exports E2E_BASE_URL (console and /api), E2E_GATEWAY_URL (the relay: `/v1/...` and the
 * playground's `/pg/...`; it forwards every other path, the console and /api, to the control
 * plane, so the console also works through it) and E2E_MOCK_URL (the upstream base URL to give
 * a channel, and the OAuth / OIDC provider stand-in under `/__oauth/...`). The returned
 * function stops all.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(consoleDir, '..');

interface Binaries {
  controlPlane: string;
  gateway: string;
  mock: string;
}

function binaries(): Binaries {
  const given = {
    controlPlane: process.env.CONTROL_PLANE_BIN,
    gateway: process.env.GATEWAY_BIN,
    mock: process.env.MOCK_PROVIDER_BIN,
  };
  if (given.controlPlane && given.gateway && given.mock) return given as Binaries;
  const targetDir = process.env.CARGO_TARGET_DIR ?? path.join(repoRoot, 'target');
  execFileSync('cargo', ['build', '-p', 'control-plane', '-p', 'gateway', '-p', 'mock-provider'], {
    cwd: repoRoot,
    stdio: 'inherit',
    env: { ...process.env, CARGO_TARGET_DIR: targetDir },
  });
  const bin = (name: string) => path.join(targetDir, 'debug', name);
  return {
    controlPlane: given.controlPlane ?? bin('control-plane'),
    gateway: given.gateway ?? bin('gateway'),
    mock: given.mock ?? bin('mock-provider'),
  };
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

/** Polls `url` until it answers 2xx. */
async function waitFor(url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready within ${ms} ms`);
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dist = path.join(consoleDir, 'dist');
  if (!existsSync(path.join(dist, 'index.html'))) throw new Error('console/dist is missing: run `npm run build` first');
  const bin = binaries();
  const [cpPort, gwPort, gwAdminPort, mockPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'console-e2e-'));
  const logFile = (name: string) => openSync(path.join(consoleDir, `test-results-${name}.log`), 'w');
  // Always a fresh embedded SQLite database: never the DATABASE_URL the Rust tests use.
  const env = { ...process.env };
  delete env.DATABASE_URL;
  const children: ChildProcess[] = [];
  const start = (binary: string, args: string[], log: string) => {
    const child = spawn(binary, args, { stdio: ['ignore', logFile(log), logFile(`${log}-stderr`)], env });
    children.push(child);
  };

  const baseUrl = `http://127.0.0.1:${cpPort}`;
  const gatewayUrl = `http://127.0.0.1:${gwPort}`;
  const mockUrl = `http://127.0.0.1:${mockPort}`;
  const stop = async () => {
    for (const child of children.reverse()) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // The stand-in first: the control plane is pointed at its port.
    start(bin.mock, ['--listen', `127.0.0.1:${mockPort}`], 'mock-provider');
    start(
      bin.controlPlane,
      [
        '--listen',
        `127.0.0.1:${cpPort}`,
        '--data-dir',
        dataDir,
        '--console-dir',
        dist,
        // Third-party sign-in against the stand-in (oauth.spec.ts): plain http to loopback is
        // allowed, and GitHub's token and user calls go to the stand-in. OIDC takes its
        // endpoints from options.
        '--outbound-allow-networks',
        '127.0.0.1/32',
        '--oauth-github-token-url',
        `${mockUrl}/__oauth/token`,
        '--oauth-github-user-url',
        `${mockUrl}/__oauth/user`,
      ],
      'control-plane',
    );
    await waitFor(`${mockUrl}/__mock/stats`, 30_000);
    await waitFor(`${baseUrl}/api/status`, 30_000);
    start(
      bin.gateway,
      [
        '--listen',
        `127.0.0.1:${gwPort}`,
        '--admin-listen',
        `127.0.0.1:${gwAdminPort}`,
        '--control-plane',
        baseUrl,
        // The console and /api through the gateway's own port (the playground needs one origin).
        '--forward-to',
        `127.0.0.1:${cpPort}`,
        '--gateway-id',
        'e2e',
        // The control plane wrote this token into its data folder at start.
        '--sync-token-file',
        path.join(dataDir, 'gateway-sync-token'),
        '--spool-dir',
        path.join(dataDir, 'spool'),
        // Tests that stop nothing mid-stream: stop at once at the end of the run.
        '--drain-seconds',
        '0',
        '--grace-period-seconds',
        '0',
      ],
      'gateway',
    );
    // Config arrives asynchronously after each change: tests poll the relay (see gateway.ts).
    await waitFor(`http://127.0.0.1:${gwAdminPort}/healthz`, 30_000);
  } catch (e) {
    await stop();
    throw e;
  }
  process.env.E2E_BASE_URL = baseUrl;
  process.env.E2E_GATEWAY_URL = gatewayUrl;
  process.env.E2E_MOCK_URL = mockUrl;
  return stop;
}
