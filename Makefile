# The two commands of the README: `make run` starts the system, `make test` runs every test.
CARGO_TARGET_DIR ?= $(HOME)/.cache/ai-gateway/target
export CARGO_TARGET_DIR
DATA_DIR ?= ./data
LISTEN ?= 127.0.0.1:3000

.PHONY: run test console

## Start the control plane on SQLite in $(DATA_DIR), serving the console (built first when npm is available).
run: console
	cargo run --release --locked -p control-plane -- --listen $(LISTEN) --data-dir $(DATA_DIR) \
		$(if $(wildcard console/dist/index.html),--console-dir console/dist,)

## Build the console when Node.js is installed.
console:
	@if command -v npm >/dev/null 2>&1 && [ -f console/package.json ]; then \
		npm --prefix console ci --no-audit --no-fund --loglevel=error && npm --prefix console run build; \
	else echo "npm not found: starting without the console"; fi

## Lints and every test suite (Rust on SQLite and PostgreSQL, console unit and browser e2e).
test:
	bash .ci/test
