"""Checks of deploy/ without Docker (run by helm/test.sh).

Usage: check_deploy.py REPO_ROOT

Environment (set by helm/test.sh):
  GLIBC_OF_BASE      "glob=version ..." glibc of base images (the mapping lives in helm/test.sh)
  GATEWAY_BIN, CONTROL_PLANE_BIN   binaries to check (empty: skipped)
  GATEWAY_HELP, CONTROL_PLANE_HELP files with their --help output (empty: flags not checked)

What is checked:
  * Dockerfiles, structurally: base images are build arguments; multi-stage with the right cargo
    build; the final stage runs as a numeric non-root user, exposes the right ports, stops with
    SIGTERM, has an exec-form ENTRYPOINT, no shell-form CMD, and either an exec-form HEALTHCHECK
    or a comment saying why there is none; COPY sources exist and are not dockerignored; the
    control-plane image carries the console where CONSOLE_DIR and the chart say.
  * The binaries' runtime needs: the GLIBC_x.y symbol versions they require are <= the glibc of
    the runtime base image (and the builder's glibc is <= the runtime's), and their NEEDED
    libraries are in the allowlist the base provides. ELF is parsed here (no binutils needed);
    when readelf exists its answer is compared.
  * compose.yaml: the services, ports, secrets and flags (each flag must be in the binary's
    --help), that the addresses agree with each other and with prometheus.yml, and that traces
    are off by default (OTEL_EXPORTER_OTLP_ENDPOINT empty) with any collector in a profile.
  * Grafana dashboards (deploy/grafana/*.json): valid JSON, schemaVersion >= 39, unique uid and
    title, a Prometheus `datasource` variable that every panel, target and query variable uses,
    rate() windows of $__rate_interval, and every metric named in a query declared (`pub const
    NAME: &str = "...";`) in gateway/src/metrics/mod.rs or control-plane/src/metrics.rs, with
    _bucket/_sum/_count only on histograms and label matchers only on the metric's own labels
    (a label named like a target label, e.g. `job`, as Prometheus stores it: exported_job).
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys

import yaml

PASSED: list[str] = []
FAILED: list[str] = []
SKIPPED: list[str] = []

# Libraries a glibc base image (distroless cc, debian) provides.
ALLOWED_NEEDED = re.compile(
    r"^(libc\.so\.6|libm\.so\.6|libgcc_s\.so\.1|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1"
    r"|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1)$")


def check(name: str, ok, detail: str = "") -> bool:
    (PASSED if ok else FAILED).append(name)
    if not ok:
        print(f"  FAIL {name}" + (f": {detail}" if detail else ""))
    return bool(ok)


def skip(name: str, why: str) -> None:
    SKIPPED.append(name)
    print(f"  SKIP {name}: {why}")


def version_tuple(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


# ---------------------------------------------------------------------------------------------
# Dockerfiles
# ---------------------------------------------------------------------------------------------
def parse_dockerfile(path: str) -> tuple[list[tuple[str, str]], str]:
    """(instruction, arguments) with continuations joined, comments dropped; and the raw text."""
    raw = open(path, encoding="utf-8").read()
    out: list[tuple[str, str]] = []
    buf = ""
    for line in raw.splitlines():
        s = line.strip()
        if not buf and (not s or s.startswith("#")):
            continue
        if buf and s.startswith("#"):
            continue
        if s.endswith("\\"):
            buf += s[:-1] + " "
            continue
        buf += s
        ins, _, rest = buf.partition(" ")
        out.append((ins.upper(), rest.strip()))
        buf = ""
    return out, raw


def stages(instrs: list[tuple[str, str]]) -> tuple[dict[str, str], list[dict]]:
    """Global ARGs (before the first FROM) and the stages with their instructions."""
    global_args: dict[str, str] = {}
    result: list[dict] = []
    for ins, rest in instrs:
        if ins == "FROM":
            m = re.match(r"^(\S+)(?:\s+AS\s+(\S+))?$", rest, re.I)
            result.append({"from": m.group(1), "name": (m.group(2) or "").lower(), "instrs": []})
        elif not result:
            if ins == "ARG":
                k, _, v = rest.partition("=")
                global_args[k] = v
        else:
            result[-1]["instrs"].append((ins, rest))
    return global_args, result


def expand(image: str, args: dict[str, str]) -> str:
    return re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), m.group(0)), image)


def glibc_of(image: str, mapping: list[tuple[str, str]]) -> str | None:
    for pattern, version in mapping:
        if fnmatch.fnmatch(image, pattern):
            return version
    return None


def dockerignore_patterns(root: str) -> list[str]:
    path = os.path.join(root, ".dockerignore")
    if not os.path.exists(path):
        return []
    return [line.strip().lstrip("/") for line in open(path) if line.strip() and not line.startswith("#")]


def ignored(rel: str, patterns: list[str]) -> bool:
    rel = rel.rstrip("/")
    for p in patterns:
        p = p.rstrip("/")
        for cand in (p, "**/" + p if not p.startswith("**/") else p):
            cand = cand.replace("**/", "*")
            if fnmatch.fnmatch(rel, cand) or fnmatch.fnmatch(rel, cand + "/*"):
                return True
    return False


def check_dockerfile(root: str, rel: str, package: str, ports: set[int], mapping, chart_values: dict) -> dict:
    path = os.path.join(root, rel)
    p = f"{rel}:"
    instrs, raw = parse_dockerfile(path)
    gargs, st = stages(instrs)
    check(f"{p} base images are build arguments (RUST_IMAGE, RUNTIME_IMAGE)",
          {"RUST_IMAGE", "RUNTIME_IMAGE"} <= set(gargs) and all(s["from"].startswith("$") or s["from"] in
                                                                 [x["name"] for x in st] for s in st),
          str([s["from"] for s in st]))
    check(f"{p} multi-stage", len(st) >= 2)
    final = st[-1]
    fi = final["instrs"]
    runtime = expand(final["from"], gargs)
    builders = [s for s in st if any(i == "RUN" and "cargo build" in r for i, r in s["instrs"])]
    check(f"{p} a builder stage runs `cargo build --release -p {package}`",
          builders and any(re.search(rf"cargo build --release\b.*-p {re.escape(package)}\b", r)
                           for i, r in builders[0]["instrs"] if i == "RUN"))
    builder_image = expand(builders[0]["from"], gargs) if builders else ""

    user = [r for i, r in fi if i == "USER"]
    check(f"{p} final stage runs as a numeric non-root user",
          user and re.match(r"^[1-9]\d*(:\d+)?$", user[-1]), str(user))
    exposed = {int(x.split("/")[0]) for i, r in fi if i == "EXPOSE" for x in r.split()}
    check(f"{p} EXPOSE {sorted(ports)}", exposed == ports, str(sorted(exposed)))
    check(f"{p} STOPSIGNAL SIGTERM", ("STOPSIGNAL", "SIGTERM") in fi)
    ep = [r for i, r in fi if i == "ENTRYPOINT"]
    check(f"{p} exec-form ENTRYPOINT (no shell at run time)", ep and ep[-1].startswith("[") and json.loads(ep[-1]))
    cmd = [r for i, r in fi if i == "CMD"]
    check(f"{p} no shell-form CMD", all(c.startswith("[") for c in cmd))
    hc = [r for i, r in fi if i == "HEALTHCHECK"]
    if hc:
        check(f"{p} HEALTHCHECK is exec form", all(h.upper().startswith("NONE") or re.search(r"CMD\s+\[", h) for h in hc))
    else:
        check(f"{p} no HEALTHCHECK, with a comment saying why", re.search(r"#\s*No HEALTHCHECK", raw))
    check(f"{p} no RUN in the final stage (it has no shell)", not any(i == "RUN" for i, _ in fi))

    # COPY sources from the context exist and are not dockerignored.
    patterns = dockerignore_patterns(root)
    for s in st:
        for i, r in s["instrs"]:
            if i not in ("COPY", "ADD") or "--from=" in r:
                continue
            parts = [x for x in shlex.split(r) if not x.startswith("--")]
            for src in parts[:-1]:
                check(f"{p} COPY source {src} exists", os.path.exists(os.path.join(root, src)))
                check(f"{p} COPY source {src} not dockerignored", not ignored(src.rstrip("/") or ".", patterns))
    # ENV values of the final stage.
    env: dict[str, str] = {}
    for i, r in fi:
        if i == "ENV":
            for tok in shlex.split(r):
                k, _, v = tok.partition("=")
                env[k] = v
    return {"runtime": runtime, "builder": builder_image, "env": env, "final": fi, "stages": st, "args": gargs}


def check_dockerfiles(root: str, mapping, chart_values: dict) -> dict:
    gw = check_dockerfile(root, "deploy/gateway.Dockerfile", "gateway", {3000, 9090}, mapping, chart_values)
    cp = check_dockerfile(root, "deploy/control-plane.Dockerfile", "control-plane", {3000, 3001, 9091}, mapping, chart_values)
    p = "deploy/control-plane.Dockerfile:"
    console = [s for s in cp["stages"] if s["name"] == "console"]
    check(f"{p} console built with node in its own stage (NODE_IMAGE)",
          console and console[0]["from"] == "${NODE_IMAGE}" and "NODE_IMAGE" in cp["args"]
          and any(i == "RUN" and "npm run build" in r for i, r in console[0]["instrs"]))
    copies = [r for i, r in cp["final"] if i == "COPY" and "--from=console" in r]
    dest = shlex.split(copies[0])[-1] if copies else None
    check(f"{p} console dist copied into the runtime image", copies and "/console/dist" in copies[0])
    check(f"{p} CONSOLE_DIR is where the console was copied", dest and cp["env"].get("CONSOLE_DIR") == dest)
    check(f"{p} the chart's controlPlane.consoleDir matches the image", chart_values["controlPlane"]["consoleDir"] == dest)
    check(f"{p} LISTEN binds every interface on the chart's http port",
          cp["env"].get("LISTEN") == f"0.0.0.0:{chart_values['controlPlane']['ports']['http']}")
    g = "deploy/gateway.Dockerfile:"
    check(f"{g} admin listener on every interface, the chart's admin port",
          gw["env"].get("GATEWAY_ADMIN_LISTEN") == f"0.0.0.0:{chart_values['gateway']['ports']['admin']}")
    check(f"{g} client listener on the chart's http port",
          gw["env"].get("GATEWAY_LISTEN") == f"0.0.0.0:{chart_values['gateway']['ports']['http']}")
    check(f"{g} spool folder owned by the runtime user",
          any(i == "COPY" and "--chown=65532:65532" in r and "/var/lib/gateway" in r for i, r in gw["final"]))

    images = {}
    for name, df in (("gateway", gw), ("control-plane", cp)):
        rt, bl = glibc_of(df["runtime"], mapping), glibc_of(df["builder"], mapping)
        check(f"{name}: runtime base {df['runtime']} has a known glibc (GLIBC_OF_BASE in helm/test.sh)", rt)
        check(f"{name}: builder {df['builder']} has a known glibc", bl)
        if rt and bl:
            check(f"{name}: builder glibc {bl} <= runtime glibc {rt} (what the build links against exists at run time)",
                  version_tuple(bl) <= version_tuple(rt))
        images[name] = (df["runtime"], rt)
    return images


# ---------------------------------------------------------------------------------------------
# ELF: NEEDED and GLIBC version needs, parsed here.
# ---------------------------------------------------------------------------------------------
def elf_needs(path: str) -> tuple[list[str], set[str]]:
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        raise ValueError("not an ELF file")
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum, _ = struct.unpack_from(end + "HHH", data, 0x3A)
        fmt = end + "IIQQQQIIQQ"
    else:
        shoff, = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum, _ = struct.unpack_from(end + "HHH", data, 0x2E)
        fmt = end + "IIIIIIIIII"
    sections = []
    for i in range(shnum):
        (name, stype, flags, addr, offset, size, link, info, align, entsize) = struct.unpack_from(fmt, data, shoff + i * shentsize)
        sections.append({"type": stype, "offset": offset, "size": size, "link": link, "info": info, "entsize": entsize})

    def cstr(sec: dict, off: int) -> str:
        start = sec["offset"] + off
        return data[start:data.index(b"\0", start)].decode()

    needed: list[str] = []
    versions: set[str] = set()
    for sec in sections:
        if sec["type"] == 6:  # SHT_DYNAMIC
            strtab = sections[sec["link"]]
            dfmt = end + ("qQ" if is64 else "iI")
            step = struct.calcsize(dfmt)
            for off in range(sec["offset"], sec["offset"] + sec["size"], step):
                tag, val = struct.unpack_from(dfmt, data, off)
                if tag == 0:
                    break
                if tag == 1:  # DT_NEEDED
                    needed.append(cstr(strtab, val))
        elif sec["type"] == 0x6FFFFFFE:  # SHT_GNU_verneed
            strtab = sections[sec["link"]]
            off = sec["offset"]
            for _ in range(sec["info"]):
                _ver, cnt, _file, aux, nxt = struct.unpack_from(end + "HHIII", data, off)
                aoff = off + aux
                for _ in range(cnt):
                    _hash, _flags, _other, name, anext = struct.unpack_from(end + "IHHII", data, aoff)
                    versions.add(cstr(strtab, name))
                    aoff += anext
                off += nxt
                if not nxt:
                    break
    return needed, versions


def readelf_needs(path: str) -> tuple[list[str], set[str]] | None:
    if not shutil.which("readelf"):
        return None
    out = subprocess.run(["readelf", "-d", "-V", "-W", path], capture_output=True, text=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    vers = set(re.findall(r"Name: (GLIBC_[0-9.]+|GCC_[0-9.]+|[A-Z_]+_[0-9.]+)\s+Flags", out))
    return needed, vers


def check_binaries(images: dict) -> dict[str, dict]:
    info: dict[str, dict] = {}
    for name, env in (("gateway", "GATEWAY_BIN"), ("control-plane", "CONTROL_PLANE_BIN")):
        path = os.environ.get(env, "")
        if not path:
            skip(f"{name} binary runtime needs", f"no binary ({env} unset and none found)")
            continue
        if not check(f"{name}: binary {path} exists", os.path.isfile(path)):
            continue
        needed, versions = elf_needs(path)
        glibc = sorted((v for v in versions if v.startswith("GLIBC_") and re.match(r"^GLIBC_\d+(\.\d+)*$", v)),
                       key=lambda v: version_tuple(v[6:]))
        highest = glibc[-1][6:] if glibc else "0"
        runtime, rt_glibc = images[name]
        if rt_glibc:
            check(f"{name}: needs GLIBC_{highest} <= {rt_glibc} of {runtime}", version_tuple(highest) <= version_tuple(rt_glibc))
        extra = [n for n in needed if not ALLOWED_NEEDED.match(n)]
        check(f"{name}: NEEDED {needed} all provided by a glibc base", needed and not extra, f"not allowed: {extra}")
        other = sorted(v for v in versions if not v.startswith(("GLIBC_", "GCC_")))
        check(f"{name}: no symbol versions of other libraries", not other, str(other))
        cross = readelf_needs(path)
        if cross is not None:
            check(f"{name}: readelf agrees on NEEDED", sorted(cross[0]) == sorted(needed), f"{cross[0]} vs {needed}")
            check(f"{name}: readelf agrees on the highest GLIBC version",
                  max((v for v in cross[1] if re.match(r"^GLIBC_\d", v)), key=lambda v: version_tuple(v[6:]), default="GLIBC_0")
                  == (glibc[-1] if glibc else "GLIBC_0"))
        info[name] = {"needed": needed, "glibc": highest, "runtime": runtime, "runtime_glibc": rt_glibc}
        print(f"  {name}: NEEDED {', '.join(needed)}; highest GLIBC_{highest}; runtime {runtime} (glibc {rt_glibc})")
    return info


# ---------------------------------------------------------------------------------------------
# compose.yaml and prometheus.yml
# ---------------------------------------------------------------------------------------------
def flag_map(command: list) -> dict[str, str]:
    out: dict[str, str] = {}
    it = iter([str(c) for c in command])
    for tok in it:
        if tok.startswith("--"):
            if "=" in tok:
                k, v = tok.split("=", 1)
            else:
                k, v = tok, next(it, "")
            out[k] = v
    return out


def interpolate(text: str) -> str:
    """Compose's ${VAR:-default} / ${VAR:?error} / ${VAR}, as with an empty environment (required
    variables get a placeholder)."""
    def sub(m: re.Match) -> str:
        name, op, arg = re.match(r"^(\w+)(?:(:?[-?])(.*))?$", m.group(1), re.S).groups()
        if op and op.endswith("-"):
            return arg
        return "placeholder"
    return re.sub(r"\$\{([^}]+)\}", sub, text)


def check_compose(root: str, helps: dict[str, str]) -> None:
    p = "compose:"
    path = os.path.join(root, "deploy/compose.yaml")
    c = yaml.safe_load(interpolate(open(path, encoding="utf-8").read()))
    try:
        import compose_spec  # the Rust compose_spec parser: strict about keys, types and values
    except ImportError:
        skip("compose.yaml against the Compose specification", "PyPI's compose-spec is not installed")
    else:
        # YAML merge keys (<<) are resolved by PyYAML first: compose_spec does not apply them.
        try:
            compose_spec.PyCompose.from_yaml(yaml.safe_dump(c))
            check(f"{p} valid per the Compose specification (compose-spec)", True)
        except ValueError as e:
            check(f"{p} valid per the Compose specification (compose-spec)", False, str(e))
    svcs = c["services"]
    check(f"{p} services postgres, redis, migrate, control-plane, 2 gateways, prometheus",
          {"postgres", "redis", "migrate", "control-plane", "gateway-1", "gateway-2", "prometheus"} <= set(svcs), str(sorted(svcs)))
    known = {b: set(re.findall(r"(--[a-z0-9][a-z0-9-]*)", t)) for b, t in helps.items()}
    for name, svc in svcs.items():
        b = svc.get("build", {})
        if b:
            ctx = os.path.normpath(os.path.join(root, "deploy", b["context"]))
            check(f"{p} {name} build file exists", os.path.exists(os.path.join(ctx, b["dockerfile"])))
        binary = ("gateway" if name.startswith("gateway") else
                  "control-plane" if name in ("control-plane", "migrate") else None)
        if binary and binary in known:
            for tok in svc.get("command", []):
                tok = str(tok)
                if tok.startswith("--"):
                    check(f"{p} {name} flag {tok.split('=')[0]} is a {binary} flag", tok.split("=")[0] in known[binary])
    cp = flag_map(svcs["control-plane"]["command"])
    check(f"{p} control plane subcommand serve", svcs["control-plane"]["command"][-1] == "serve")
    check(f"{p} migrate runs `control-plane migrate`", svcs["migrate"]["command"] == ["migrate"])
    check(f"{p} control plane waits for the migration",
          svcs["control-plane"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully")
    cp_ip = svcs["control-plane"]["networks"]["backend"]["ipv4_address"]
    cp_listen_port = port_of(cp["--listen"])
    grpc_port = port_of(cp["--grpc-listen"])
    cp_admin = cp.get("--admin-listen", "")
    check(f"{p} control plane admin listener (metrics, health) on every interface", cp_admin.startswith("0.0.0.0:"), cp_admin)
    cp_admin_port = port_of(cp_admin) if cp_admin else None
    check(f"{p} control plane admin port differs from --listen and --grpc-listen",
          cp_admin_port and cp_admin_port not in (cp_listen_port, grpc_port))
    published = [str(x) for x in svcs["control-plane"].get("ports", [])]
    check(f"{p} control plane admin port not published on the host",
          cp_admin_port and not any(x.rsplit(":", 1)[-1].split("/")[0] == str(cp_admin_port) for x in published), str(published))
    cp_secret_targets = {s["target"] for s in svcs["control-plane"]["secrets"]}
    data_dir = cp["--data-dir"]
    check(f"{p} control plane reads the sync token and the encryption key from files in --data-dir",
          {f"{data_dir}/gateway-sync-token", f"{data_dir}/encryption.key"} <= cp_secret_targets)
    check(f"{p} the same sync-token secret for the control plane and the gateways",
          any(s["source"] == "gateway_sync_token" for s in svcs["control-plane"]["secrets"]))
    gw_ips = []
    admin_targets = []
    for g in ("gateway-1", "gateway-2"):
        f = flag_map(svcs[g]["command"])
        check(f"{p} {g} dials the control plane's gRPC port",
              f.get("--control-plane") == f"http://control-plane:{grpc_port}")
        check(f"{p} {g} forwards to the control plane's address", f.get("--forward-to") == f"{cp_ip}:{cp_listen_port}")
        check(f"{p} {g} sync token from the secret file", f.get("--sync-token-file") == "/run/secrets/gateway_sync_token"
              and "gateway_sync_token" in [s if isinstance(s, str) else s["source"] for s in svcs[g]["secrets"]])
        check(f"{p} {g} spool on a volume", any(str(v).endswith(":" + f["--spool-dir"]) for v in svcs[g]["volumes"]))
        check(f"{p} {g} shares Redis", svcs[g]["environment"].get("REDIS_URL", "").startswith("redis://redis:"))
        check(f"{p} {g} admin listener on every interface", f.get("--admin-listen", "").startswith("0.0.0.0:"))
        # + the gateway's final usage delivery (up to 10 s, gateway/README.md)
        stop = int(f["--drain-seconds"]) + int(f["--grace-period-seconds"]) + int(f["--shutdown-timeout-seconds"]) + 10
        grace = svcs[g]["stop_grace_period"]
        check(f"{p} {g} stop_grace_period {grace} covers the drain ({stop}s)", int(grace.rstrip("s")) >= stop)
        gw_ips.append(svcs[g]["networks"]["backend"]["ipv4_address"])
        admin_targets.append(f"{g}:{port_of(f['--admin-listen'])}")
    check(f"{p} the control plane trusts exactly the gateways' addresses", set(cp["--trusted-proxies"].split(",")) == set(gw_ips))
    # Traces: both planes take OTEL_EXPORTER_OTLP_ENDPOINT from deploy/.env, empty (off) by default;
    # a collector service (Jaeger) exists only in an opt-in profile, so nothing more is pulled.
    for name in ("control-plane", "gateway-1", "gateway-2"):
        env = svcs[name].get("environment", {})
        check(f"{p} {name} OTEL_EXPORTER_OTLP_ENDPOINT from deploy/.env, off by default",
              "OTEL_EXPORTER_OTLP_ENDPOINT" in env and not env["OTEL_EXPORTER_OTLP_ENDPOINT"], str(env.get("OTEL_EXPORTER_OTLP_ENDPOINT")))
    default_images = {"postgres", "redis", "prometheus"}
    extra = [n for n, svc in svcs.items() if not svc.get("build") and n not in default_images and not svc.get("profiles")]
    check(f"{p} services beyond the base set are built or in an opt-in profile", not extra, str(extra))
    for s in c.get("secrets", {}).values():
        check(f"{p} secret file {s['file']} under deploy/secrets (gitignored)", s["file"].startswith("./secrets/"))

    prom = yaml.safe_load(open(os.path.join(root, "deploy/prometheus.yml")))
    jobs = {j["job_name"]: [t for sc in j["static_configs"] for t in sc["targets"]] for j in prom["scrape_configs"]}
    check(f"{p} prometheus scrapes both gateways' admin ports", sorted(jobs.get("gateway", [])) == sorted(admin_targets),
          str(jobs.get("gateway")))
    check(f"{p} prometheus scrapes the control plane's admin port", jobs.get("control-plane") == [f"control-plane:{cp_admin_port}"],
          str(jobs.get("control-plane")))
    honor = {j["job_name"]: j.get("honor_labels", False) for j in prom["scrape_configs"]}
    check(f"{p} prometheus does not honor the control plane's labels (the target's own stay)",
          not honor.get("control-plane"))
    check(f"{p} prometheus.yml mounted", any("prometheus.yml" in str(v) for v in svcs["prometheus"]["volumes"]))


# ---------------------------------------------------------------------------------------------
# Grafana dashboards (deploy/grafana/*.json) against the metrics the binaries declare
# ---------------------------------------------------------------------------------------------
METRIC_SOURCES = ("gateway/src/metrics/mod.rs", "control-plane/src/metrics.rs")
# Labels Prometheus adds to every series (scrape target) or that histograms carry.
TARGET_LABELS = {"job", "instance"}


def scraped_labels(keys: set[str]) -> set[str]:
    """A metric's labels as stored: one named like a target label is renamed exported_<name>
    (honor_labels off, the default, and what compose and the chart use for the control plane)."""
    return {f"exported_{k}" if k in TARGET_LABELS else k for k in keys}
METRIC_RE = re.compile(r"(?<![A-Za-z0-9_:$])(?:gateway|control_plane)_[a-z_]+")
DATASOURCE_REFS = ("${datasource}", "$datasource")


def declared_metrics(root: str) -> tuple[dict[str, set[str]], set[str]]:
    """Metric name -> its label keys, and the histograms' names, from the metrics.rs files."""
    labels: dict[str, set[str]] = {}
    histograms: set[str] = set()
    for rel in METRIC_SOURCES:
        src = open(os.path.join(root, rel), encoding="utf-8").read()
        consts = dict(re.findall(r'^\s*pub const ([A-Z0-9_]+): &str = "([^"]+)";', src, re.M))
        for name in consts.values():
            labels[name] = set()
        histograms |= {consts[c] for c in re.findall(r"HistogramOpts::new\(\s*([A-Z0-9_]+)\b", src) if c in consts}
        for m in re.finditer(r"\b(?:IntCounterVec|IntGaugeVec|CounterVec|GaugeVec|HistogramVec)::new\(\s*"
                             r"(?:Histogram)?Opts::new\(\s*([A-Z0-9_]+)\b", src):
            keys = re.search(r"&\[([^\]]*)\]", src[m.end():])
            if m.group(1) in consts and keys:
                labels[consts[m.group(1)]] = set(re.findall(r'"([^"]+)"', keys.group(1)))
    return labels, histograms


def flat_panels(panels: list) -> list:
    out = []
    for p in panels:
        out.append(p)
        out.extend(flat_panels(p.get("panels", [])))
    return out


def ds_uid(ds) -> str | None:
    return ds.get("uid") if isinstance(ds, dict) else ds


def check_dashboards(root: str) -> None:
    folder = os.path.join(root, "deploy/grafana")
    files = sorted(f for f in os.listdir(folder) if f.endswith(".json")) if os.path.isdir(folder) else []
    check("grafana: deploy/grafana holds dashboards", files, folder)
    labels, histograms = declared_metrics(root)
    check(f"grafana: metric names read from {', '.join(METRIC_SOURCES)}", len(labels) >= 20, str(sorted(labels)))
    uids: dict[str, str] = {}
    titles: dict[str, str] = {}
    for f in files:
        p = f"grafana/{f}:"
        try:
            d = json.load(open(os.path.join(folder, f), encoding="utf-8"))
        except ValueError as e:
            check(f"{p} valid JSON", False, str(e))
            continue
        check(f"{p} valid JSON", isinstance(d, dict))
        check(f"{p} schemaVersion >= 39", isinstance(d.get("schemaVersion"), int) and d["schemaVersion"] >= 39,
              str(d.get("schemaVersion")))
        uid, title = d.get("uid"), d.get("title")
        check(f"{p} uid {uid!r} set (<= 40 characters) and unique", isinstance(uid, str) and 0 < len(uid) <= 40
              and uid not in uids, f"also in {uids.get(uid)}")
        check(f"{p} title {title!r} set and unique", isinstance(title, str) and title.strip() and title not in titles,
              f"also in {titles.get(title)}")
        uids[uid], titles[title] = f, f
        variables = d.get("templating", {}).get("list", [])
        check(f"{p} a `datasource` template variable of type prometheus",
              any(v.get("name") == "datasource" and v.get("type") == "datasource" and v.get("query") == "prometheus"
                  for v in variables))
        queries: list[tuple[str, str]] = []  # (where, PromQL)
        bad_ds: list[str] = []
        for v in variables:
            if v.get("type") == "query":
                if ds_uid(v.get("datasource")) not in DATASOURCE_REFS:
                    bad_ds.append(f"variable {v.get('name')}")
                q = v.get("query")
                queries.append((f"variable {v.get('name')}", q.get("query", "") if isinstance(q, dict) else str(q or "")))
        panels = flat_panels(d.get("panels", []))
        graphs = [x for x in panels if x.get("type") != "row"]
        no_expr: list[str] = []
        for x in graphs:
            where = f"panel {x.get('id')} {x.get('title')!r}"
            if ds_uid(x.get("datasource")) not in DATASOURCE_REFS:
                bad_ds.append(where)
            targets = x.get("targets") or []
            if not targets or not all(t.get("expr") for t in targets):
                no_expr.append(where)
            for t in targets:
                if "datasource" in t and ds_uid(t["datasource"]) not in DATASOURCE_REFS:
                    bad_ds.append(f"{where} target {t.get('refId')}")
                queries.append((where, t.get("expr", "")))
        check(f"{p} {len(graphs)} panels in {len(panels) - len(graphs)} rows", graphs)
        check(f"{p} every panel, target and query variable uses the ${{datasource}} variable", not bad_ds, str(bad_ds))
        check(f"{p} every panel has queries", not no_expr, str(no_expr))
        ids = [x.get("id") for x in panels]
        check(f"{p} panel ids unique", len(ids) == len(set(ids)) and None not in ids)
        check(f"{p} panels fit the 24-column grid", all(
            x.get("gridPos", {}).get("x", -1) >= 0 and x["gridPos"]["x"] + x["gridPos"].get("w", 99) <= 24 for x in panels))
        windows = [(w, r) for w, q in queries for r in re.findall(r"\b(?:rate|irate)\([^\[]*\[([^\]]*)\]", q)]
        check(f"{p} rate() windows are $__rate_interval", windows and all(r == "$__rate_interval" for _, r in windows),
              str([x for x in windows if x[1] != "$__rate_interval"]))
        used: set[str] = set()
        unknown: list[str] = []
        bad_labels: list[str] = []
        for where, q in queries:
            for m in METRIC_RE.finditer(q):
                name = base = m.group(0)
                used.add(name)
                if name not in labels:
                    base = re.sub(r"_(bucket|sum|count)$", "", name)
                    if base == name or base not in histograms:
                        unknown.append(f"{name} ({where})")
                        continue
                allowed = scraped_labels(labels[base]) | TARGET_LABELS | ({"le"} if name.endswith("_bucket") else set())
                sel = re.match(r"\{([^}]*)\}", q[m.end():])
                keys = re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)", sel.group(1)) if sel else []
                bad_labels += [f"{name}{{{k}}} ({where})" for k in keys if k not in allowed]
            # Aggregation labels must belong to a metric of the same query.
            allowed_here = set(TARGET_LABELS) | {"le"}
            for m in METRIC_RE.finditer(q):
                allowed_here |= scraped_labels(labels.get(re.sub(r"_(bucket|sum|count)$", "", m.group(0)), set())
                                               | labels.get(m.group(0), set()))
            for group in re.findall(r"\b(?:by|without)\s*\(([^)]*)\)", q):
                bad_labels += [f"by {k} ({where})" for k in re.findall(r"[A-Za-z_]\w*", group) if k not in allowed_here]
        check(f"{p} the {len(used)} metric names queried are declared in the metrics.rs files", used and not unknown,
              str(unknown))
        check(f"{p} label matchers and groupings use the metrics' own labels (or job, instance, le, "
              f"exported_<target label>)", not bad_labels,
              str(bad_labels))


def port_of(addr: str) -> int:
    return int(str(addr).rsplit(":", 1)[1])


def main() -> int:
    root = sys.argv[1]
    mapping = [tuple(x.split("=", 1)) for x in os.environ.get("GLIBC_OF_BASE", "").split()]
    chart_values = yaml.safe_load(open(os.path.join(root, "helm/ai-gateway/values.yaml")))
    helps = {}
    for b, env in (("gateway", "GATEWAY_HELP"), ("control-plane", "CONTROL_PLANE_HELP")):
        if os.environ.get(env) and os.path.exists(os.environ[env]):
            helps[b] = open(os.environ[env]).read()
    sections = (("dockerfiles", lambda: check_dockerfiles(root, mapping, chart_values)),)
    images = {}
    for label, fn in sections:
        try:
            images = fn()
        except Exception as e:  # a malformed file must fail, not crash the summary
            check(f"{label} checks ran", False, f"{type(e).__name__}: {e}")
    try:
        check_binaries(images)
    except Exception as e:
        check("binary checks ran", False, f"{type(e).__name__}: {e}")
    try:
        check_compose(root, helps)
    except Exception as e:
        check("compose checks ran", False, f"{type(e).__name__}: {e}")
    try:
        check_dashboards(root)
    except Exception as e:
        check("grafana dashboard checks ran", False, f"{type(e).__name__}: {e}")
    if not helps:
        skip("compose flags vs --help", "no binaries")
    print(f"deploy: {len(PASSED)} passed, {len(FAILED)} failed, {len(SKIPPED)} skipped")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
