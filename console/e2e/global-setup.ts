/**
 * Starts the real system for the e2e run: the mock upstream provider, the control plane on
 * a fresh SQLite data dir serving ../dist, and one gateway that takes its config from that
 * control plane over gRPC and reports usage to it.
 * - binaries: $CONTROL_PLANE_BIN / $GATEWAY_BIN / $MOCK_PROVIDER_BIN, else one
 *   `cargo build` of the three packages (a no-op when up to date) into $CARGO_TARGET_DIR
 *   (default <repo>/target);
 * - free loopback ports, started again on new ones if a bind loses a race; run `npm run build`
 *   first (`npm run e2e` does).
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

/**
 * A loopback port that is free now, drawn below Linux's ephemeral range (32768-60999), so the
 * outgoing connections of the processes under test (which take ephemeral ports) cannot land on
 * it between this check and the bind. A later bind can still lose a race with another program:
 * `launch` retries on new ports when its process exits before it is ready.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Polls `url` until it answers 2xx (true); false once `exited()` says the process is gone or `ms` pass. */
async function waitFor(url: string, ms: number, exited: () => boolean = () => false): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (exited()) return false;
    try {
      const res = await fetch(url);
      if (res.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dist = path.join(consoleDir, 'dist');
  if (!existsSync(path.join(dist, 'index.html'))) throw new Error('console/dist is missing: run `npm run build` first');
  const bin = binaries();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'console-e2e-'));
  const logFile = (name: string) => openSync(path.join(consoleDir, `test-results-${name}.log`), 'w');
  // Always a fresh embedded SQLite database: never the DATABASE_URL the Rust tests use.
  const env = { ...process.env };
  delete env.DATABASE_URL;
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse()) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dataDir, { recursive: true, force: true });
  };
  /**
   * Starts `binary` on `portCount` fresh ports and waits until `readyUrl` answers. A process that
   * exits or stays unready (a port taken between the check and its bind: pingora logs the failed
   * bind and keeps running) is stopped and started again on new ports.
   */
  const launch = async (
    binary: string,
    log: string,
    portCount: number,
    args: (ports: number[]) => string[],
    readyUrl: (ports: number[]) => string,
  ): Promise<number[]> => {
    for (let attempt = 1; ; attempt++) {
      const ports: number[] = [];
      while (ports.length < portCount) {
        const port = await freePort();
        if (!ports.includes(port)) ports.push(port);
      }
      const child = spawn(binary, args(ports), { stdio: ['ignore', logFile(log), logFile(`${log}-stderr`)], env });
      children.push(child);
      let exited = false;
      child.once('exit', () => {
        exited = true;
      });
      if (await waitFor(readyUrl(ports), 30_000, () => exited)) return ports;
      child.kill('SIGKILL');
      if (attempt === 3) throw new Error(`${log} was not ready on 3 sets of ports: see test-results-${log}-stderr.log`);
    }
  };

  let baseUrl: string;
  let gatewayUrl: string;
  let mockUrl: string;
  try {
    // The stand-in first: the control plane is pointed at its port.
    const [mockPort] = await launch(
      bin.mock,
      'mock-provider',
      1,
      ([port]) => ['--listen', `127.0.0.1:${port}`],
      ([port]) => `http://127.0.0.1:${port}/__mock/stats`,
    );
    mockUrl = `http://127.0.0.1:${mockPort}`;
    const [cpPort] = await launch(
      bin.controlPlane,
      'control-plane',
      1,
      ([port]) => [
        '--listen',
        `127.0.0.1:${port}`,
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
      ([port]) => `http://127.0.0.1:${port}/api/status`,
    );
    baseUrl = `http://127.0.0.1:${cpPort}`;
    const [gwPort] = await launch(
      bin.gateway,
      'gateway',
      2,
      ([port, adminPort]) => [
        '--listen',
        `127.0.0.1:${port}`,
        '--admin-listen',
        `127.0.0.1:${adminPort}`,
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
      // Config arrives asynchronously after each change: tests poll the relay (see gateway.ts).
      ([, adminPort]) => `http://127.0.0.1:${adminPort}/healthz`,
    );
    gatewayUrl = `http://127.0.0.1:${gwPort}`;
  } catch (e) {
    await stop();
    throw e;
  }
  process.env.E2E_BASE_URL = baseUrl;
  process.env.E2E_GATEWAY_URL = gatewayUrl;
  process.env.E2E_MOCK_URL = mockUrl;
  return stop;
}
