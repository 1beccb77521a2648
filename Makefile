# The two commands of the README: `make run` starts the system, `make test` runs every test.
CARGO_TARGET_DIR ?= $(HOME)/.cache/ai-gateway/target
export CARGO_TARGET_DIR
DATA_DIR ?= ./data
LISTEN ?= 127.0.0.1:3000
CONTROL_PLANE_LISTEN ?= 127.0.0.1:3001
GATEWAY_ADMIN_LISTEN ?= 127.0.0.1:9090
CONTROL_PLANE_ADMIN_LISTEN ?= 127.0.0.1:9091
# `make run CARGO_PROFILE=dev` for a quicker, unoptimised build.
CARGO_PROFILE ?= release
BIN_DIR = $(CARGO_TARGET_DIR)/$(if $(filter dev,$(CARGO_PROFILE)),debug,$(CARGO_PROFILE))

.PHONY: run test console build-deps

## Start the whole system: the control plane on SQLite in $(DATA_DIR) (REST, console when built,
## gRPC) on $(CONTROL_PLANE_LISTEN), and one gateway on $(LISTEN) that relays /v1 traffic and
## forwards the console and /api to the control plane: one port for everything. The control
## plane writes a gateway sync token into $(DATA_DIR) at its first start; the gateway reads it.
run: console build-deps
	PATH="$$PATH:$$(python3 -m site --user-base 2>/dev/null)/bin" \
		cargo build --profile $(CARGO_PROFILE) --locked -p control-plane -p gateway
	@set -e; \
	$(BIN_DIR)/control-plane --listen $(CONTROL_PLANE_LISTEN) --data-dir $(DATA_DIR) \
		--admin-listen $(CONTROL_PLANE_ADMIN_LISTEN) \
		--trusted-proxies 127.0.0.1,::1 \
		$(if $(wildcard console/dist/index.html),--console-dir console/dist,) & cp=$$!; \
	trap 'kill -TERM $$cp 2>/dev/null; wait $$cp' EXIT; \
	$(BIN_DIR)/gateway --listen $(LISTEN) --admin-listen $(GATEWAY_ADMIN_LISTEN) \
		--control-plane http://$(CONTROL_PLANE_LISTEN) --forward-to $(CONTROL_PLANE_LISTEN) \
		--sync-token-file $(DATA_DIR)/gateway-sync-token \
		--gateway-id local --spool-dir $(DATA_DIR)/spool

## What the Rust build needs besides the toolchain (cmake for pingora).
build-deps:
	@bash .ci/build-deps

## Build the console when Node.js is installed.
console:
	@if command -v npm >/dev/null 2>&1 && [ -f console/package.json ]; then \
		npm --prefix console ci --no-audit --no-fund --loglevel=error && npm --prefix console run build; \
	else echo "npm not found: starting without the console"; fi

## Lints and every test suite (Rust on SQLite and PostgreSQL, console unit and browser e2e).
test:
	bash .ci/test
