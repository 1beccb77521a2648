# syntax=docker/dockerfile:1.7
#
# Image of the control plane with the built console. Build from the repository root:
#   docker buildx build -f deploy/control-plane.Dockerfile -t ai-gateway-control-plane:dev .
# Base images are build arguments, so a mirror or a pinned digest can be used without editing
# this file. The runtime image must provide glibc >= the builder's (see helm/test.sh).

ARG RUST_IMAGE=rust:1.95-bookworm
ARG NODE_IMAGE=node:20-bookworm-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

# ---------------------------------------------------------------------------------------------
# The console (React, vite): static files served by the control plane with --console-dir.
FROM ${NODE_IMAGE} AS console
WORKDIR /console
COPY console/package.json console/package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund --loglevel=error
COPY console/ ./
RUN npm run build

# ---------------------------------------------------------------------------------------------
FROM ${RUST_IMAGE} AS build
# cmake builds pingora's zlib-ng in the gateway; installed here too (builder stage only) so a
# change in the shared dependency graph cannot break this image's build.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY proto ./proto
COPY gateway ./gateway
COPY control-plane ./control-plane
COPY migrations ./migrations
COPY benches ./benches
# Migrations are compiled into the binary (sqlx::migrate!), so `control-plane migrate` needs
# no files at run time.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/usr/local/cargo/git \
    --mount=type=cache,target=/src/target,id=ai-gateway-target-control-plane \
    cargo build --release --locked -p control-plane \
 && install -D -m 0755 target/release/control-plane /out/usr/local/bin/control-plane \
 && strip --strip-debug /out/usr/local/bin/control-plane
# The data folder (SQLite when no DATABASE_URL, generated key files), owned by the runtime user.
RUN install -d -m 0750 -o 65532 -g 65532 /out/var/lib/control-plane

# ---------------------------------------------------------------------------------------------
FROM ${RUNTIME_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="ai-gateway control-plane" \
      org.opencontainers.image.description="AI model API gateway: control plane (REST API, console, gRPC for gateways)" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=build /out/usr/local/bin/control-plane /usr/local/bin/control-plane
COPY --from=console /console/dist /usr/share/ai-gateway/console
COPY --from=build --chown=65532:65532 /out/var/lib/control-plane /var/lib/control-plane
# Container defaults (each is also a flag): listen on every interface (the admin listener too:
# metrics and health), data and console folders.
ENV LISTEN=0.0.0.0:3000 \
    ADMIN_LISTEN=0.0.0.0:9091 \
    DATA_DIR=/var/lib/control-plane \
    CONSOLE_DIR=/usr/share/ai-gateway/console
WORKDIR /var/lib/control-plane
USER 65532:65532
# 3000: REST API and console (and the gateways' gRPC unless --grpc-listen is set);
# 3001: the gateways' gRPC services when started with --grpc-listen 0.0.0.0:3001 (compose and
# the Helm chart do, so that only gateways can be let through to it);
# 9091: the admin listener, /metrics, /healthz and /readyz (keep it off the public network).
EXPOSE 3000 3001 9091
STOPSIGNAL SIGTERM
# No HEALTHCHECK: the runtime image has no shell or HTTP client. Kubernetes probes
# GET /healthz and /readyz on port 9091 (see the Helm chart).
ENTRYPOINT ["/usr/local/bin/control-plane"]
# Flags go before the subcommand: `docker run IMAGE --database-url … serve` or `… migrate`.
CMD ["serve"]
