# syntax=docker/dockerfile:1.7
#
# Image of the gateway (the data plane). Build from the repository root:
#   docker buildx build -f deploy/gateway.Dockerfile -t ai-gateway-gateway:dev .
# Base images are build arguments, so a mirror or a pinned digest can be used without editing
# this file. The runtime image must provide glibc >= the builder's (see helm/test.sh, which
# checks the binary's GLIBC symbol versions and NEEDED libraries against the runtime base).

ARG RUST_IMAGE=rust:1.95-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

# ---------------------------------------------------------------------------------------------
FROM ${RUST_IMAGE} AS build
# pingora's build needs cmake (zlib-ng); protoc is vendored by the proto crate.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Only the Cargo workspace (every member must be present for `--locked` resolution).
COPY Cargo.toml Cargo.lock ./
COPY proto ./proto
COPY gateway ./gateway
COPY control-plane ./control-plane
COPY migrations ./migrations
COPY benches ./benches
# The target folder is a cache mount, so the binary is copied out in the same step.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/usr/local/cargo/git \
    --mount=type=cache,target=/src/target,id=ai-gateway-target-gateway \
    cargo build --release --locked -p gateway \
 && install -D -m 0755 target/release/gateway /out/usr/local/bin/gateway \
 && strip --strip-debug /out/usr/local/bin/gateway
# The spool folder, owned by the runtime user (a named volume mounted there starts with it).
RUN install -d -m 0750 -o 65532 -g 65532 /out/var/lib/gateway /out/var/lib/gateway/spool

# ---------------------------------------------------------------------------------------------
FROM ${RUNTIME_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="ai-gateway gateway" \
      org.opencontainers.image.description="AI model API gateway: the data plane (pingora relay)" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=build /out/usr/local/bin/gateway /usr/local/bin/gateway
COPY --from=build --chown=65532:65532 /out/var/lib/gateway /var/lib/gateway
# Container defaults: listen on every interface (the binary's admin default is loopback only).
ENV GATEWAY_LISTEN=0.0.0.0:3000 \
    GATEWAY_ADMIN_LISTEN=0.0.0.0:9090 \
    GATEWAY_SPOOL_DIR=/var/lib/gateway/spool
WORKDIR /var/lib/gateway
# Numeric user (distroless "nonroot"): Kubernetes' runAsNonRoot can verify it.
USER 65532:65532
# 3000: client traffic (relay, and the console with --forward-to); 9090: /metrics /healthz /readyz.
EXPOSE 3000 9090
# SIGTERM starts the drain (--drain-seconds, then --grace-period-seconds).
STOPSIGNAL SIGTERM
# No HEALTHCHECK: the runtime image has no shell or HTTP client, and the binary has no probe
# subcommand. Kubernetes probes /healthz and /readyz on the admin port (see the Helm chart);
# compose relies on restart policies.
ENTRYPOINT ["/usr/local/bin/gateway"]
