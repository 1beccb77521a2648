#!/usr/bin/env bash
# Installs Debian's Chromium and the CJK font used by the Playwright e2e tests.
# Idempotent: does nothing when /usr/bin/chromium already exists.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "chromium already installed: $(/usr/bin/chromium --version 2>/dev/null || echo unknown)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends chromium fonts-noto-cjk
