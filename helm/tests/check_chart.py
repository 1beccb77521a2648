"""Assertions on the ai-gateway chart's rendered manifests (run by helm/test.sh).

Usage: check_chart.py RENDER_DIR CHART_DIR KUBE_VERSION [GATEWAY_HELP CONTROL_PLANE_HELP]

RENDER_DIR holds the outputs of `helm template` that helm/test.sh wrote:
  default.yaml     default values
  monitoring.yaml  default values, with the Prometheus Operator's API (--api-versions)
  production.yaml  values-production.yaml
  variant.yaml     generated gRPC TLS + mTLS, ephemeral spool, no Redis, external database by
                   inline URL, pinned control-plane ClusterIP, autoscaling off, ingress on,
                   tracing over OTLP/gRPC with headers from a Secret (VARIANT_TRACING)
Every manifest is validated with kubernetes-validate (strict) against KUBE_VERSION, except the
kinds of CRDs (ServiceMonitor), whose schemas it does not have. The --help texts of the binaries,
when given, are used to check that every flag the chart passes exists.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections import Counter
from typing import Any, Callable, Iterable

import yaml

# After SIGTERM, drain, grace and runtime shutdown, the gateway delivers queued usage for up to
# 10 s (fixed in the gateway; gateway/README.md).
SPOOL_DELIVERY_S = 10

# The tracing values helm/test.sh sets for the variant render (keep both in step).
VARIANT_TRACING = {
    "endpoint": "http://otel-collector.observability:4317",
    "protocol": "grpc",
    "headersSecret": {"name": "ai-gateway-otlp", "key": "headers"},
    "serviceNames": {"gateway": "ai-gateway-edge"},
    "sampler": {"name": "parentbased_traceidratio", "ratio": "0.25"},
}

# Kinds served by CRDs: kubernetes-validate has no schema for them; checked by assertions only.
CRD_KINDS = {("monitoring.coreos.com/v1", "ServiceMonitor")}

PASSED: list[str] = []
FAILED: list[str] = []


def check(name: str, ok: Any, detail: str = "") -> bool:
    if ok:
        PASSED.append(name)
    else:
        FAILED.append(name)
        print(f"  FAIL {name}" + (f": {detail}" if detail else ""))
    return bool(ok)


def load(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d]


def find(docs: Iterable[dict], kind: str, pred: Callable[[dict], bool] = lambda d: True) -> list[dict]:
    return [d for d in docs if d.get("kind") == kind and pred(d)]


def one(docs: Iterable[dict], kind: str, suffix: str) -> dict:
    found = find(docs, kind, lambda d: d["metadata"]["name"].endswith(suffix))
    if len(found) != 1:
        raise AssertionError(f"expected one {kind} named *{suffix}, found {len(found)}")
    return found[0]


def component(d: dict) -> str:
    return d["metadata"]["labels"].get("app.kubernetes.io/component", "")


def pod_spec(d: dict) -> dict:
    return d["spec"]["template"]["spec"]


def container(d: dict, name: str) -> dict:
    return next(c for c in pod_spec(d)["containers"] if c["name"] == name)


def arg_value(args: list[str], flag: str) -> str | None:
    for a in args:
        if a.startswith(flag + "="):
            return a.split("=", 1)[1]
    return None


def port_of(addr: str) -> int:
    return int(addr.rsplit(":", 1)[1])


def env_of(c: dict, name: str) -> dict | None:
    return next((e for e in c.get("env", []) if e["name"] == name), None)


def env_value(c: dict, name: str) -> str | None:
    return (env_of(c, name) or {}).get("value")


def otel_env(d: dict) -> list[str]:
    """Names of the OTEL_* variables of a workload's containers."""
    return [e["name"] for c in pod_spec(d)["containers"] for e in c.get("env", []) if e["name"].startswith("OTEL_")]


def tracing_checks(p: str, docs: list[dict], tracing: dict) -> None:
    """Both Deployments export to tracing['endpoint'] with its protocol, headers from the given
    Secret (or none), the pod named in the resource attributes, and a service name only when set."""
    for d, key in ((one(docs, "Deployment", "-gateway"), "gateway"), (one(docs, "Deployment", "-control-plane"), "controlPlane")):
        c = pod_spec(d)["containers"][0]
        who = f"{p} {d['metadata']['name']}"
        check(f"{who} OTEL_EXPORTER_OTLP_ENDPOINT is the collector",
              env_value(c, "OTEL_EXPORTER_OTLP_ENDPOINT") == tracing["endpoint"], str(env_of(c, "OTEL_EXPORTER_OTLP_ENDPOINT")))
        check(f"{who} OTEL_EXPORTER_OTLP_PROTOCOL {tracing['protocol']}",
              env_value(c, "OTEL_EXPORTER_OTLP_PROTOCOL") == tracing["protocol"])
        headers = env_of(c, "OTEL_EXPORTER_OTLP_HEADERS")
        hs = tracing.get("headersSecret", {})
        if hs.get("name"):
            check(f"{who} OTEL_EXPORTER_OTLP_HEADERS from Secret {hs['name']} key {hs['key']}",
                  headers and "value" not in headers
                  and headers.get("valueFrom", {}).get("secretKeyRef") == {"name": hs["name"], "key": hs["key"]}, str(headers))
        else:
            check(f"{who} no OTEL_EXPORTER_OTLP_HEADERS without a headers Secret", headers is None)
        service = tracing.get("serviceNames", {}).get(key, "")
        check(f"{who} OTEL_SERVICE_NAME {service or '(the binary default: unset)'}",
              env_value(c, "OTEL_SERVICE_NAME") == (service or None))
        sampler = tracing.get("sampler", {})
        check(f"{who} OTEL_TRACES_SAMPLER / _ARG as configured",
              env_value(c, "OTEL_TRACES_SAMPLER") == (sampler.get("name") or None)
              and env_value(c, "OTEL_TRACES_SAMPLER_ARG") == (None if sampler.get("ratio") is None else str(sampler["ratio"])))
        attrs = dict(kv.split("=", 1) for kv in (env_value(c, "OTEL_RESOURCE_ATTRIBUTES") or "").split(",") if "=" in kv)
        pod_var = re.fullmatch(r"\$\((\w+)\)", attrs.get("k8s.pod.name", ""))
        pod_env = env_of(c, pod_var.group(1)) if pod_var else None
        check(f"{who} resource attributes name the namespace, Deployment and pod (downward API)",
              attrs.get("k8s.namespace.name") == d["metadata"].get("namespace", "ai-gateway")
              and attrs.get("k8s.deployment.name") == d["metadata"]["name"]
              and pod_env and pod_env.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "metadata.name", str(attrs))
        check(f"{who} no service.name in OTEL_RESOURCE_ATTRIBUTES (one per plane: OTEL_SERVICE_NAME)",
              "service.name" not in attrs)


def matches(selector: dict, labels: dict) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


# ---------------------------------------------------------------------------------------------
def validate_all(renders: dict[str, list[dict]], kube_version: str) -> Counter:
    import kubernetes_validate

    kinds: Counter = Counter()
    skipped: Counter = Counter()
    for scenario, docs in renders.items():
        for d in docs:
            key = (d.get("apiVersion"), d.get("kind"))
            if key in CRD_KINDS:
                skipped[d["kind"]] += 1
                continue
            kinds[d["kind"]] += 1
            name = f"{scenario}: {d['kind']}/{d['metadata']['name']} valid for Kubernetes {kube_version} (strict)"
            try:
                kubernetes_validate.validate(d, kube_version, strict=True)
                check(name, True)
            except Exception as e:  # ValidationError, SchemaNotFoundError
                msg = getattr(e, "message", None) or str(e).splitlines()[0]
                path = "/".join(str(p) for p in getattr(e, "absolute_path", []) or [])
                check(name, False, f"{msg} at {path}")
    total = sum(kinds.values())
    print(f"  validated {total} manifests ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))})")
    if skipped:
        print(f"  not schema-validated (CRD kinds unknown to kubernetes-validate): "
              f"{', '.join(f'{k} {n}' for k, n in sorted(skipped.items()))}")
    return kinds


# ---------------------------------------------------------------------------------------------
def common_checks(scenario: str, docs: list[dict], existing_secrets: set[str]) -> None:
    """Wiring that must hold whatever the values."""
    p = f"{scenario}:"
    names = Counter((d["kind"], d["metadata"]["name"]) for d in docs)
    dup = [k for k, n in names.items() if n > 1]
    check(f"{p} object names unique", not dup, str(dup))

    workloads = find(docs, "Deployment") + find(docs, "StatefulSet") + find(docs, "Job")
    # Every Service selects some pods and its named target ports exist on them.
    for svc in find(docs, "Service"):
        sel = svc["spec"].get("selector", {})
        pods = [w for w in workloads if matches(sel, w["spec"]["template"]["metadata"]["labels"])]
        check(f"{p} Service {svc['metadata']['name']} selects pods", pods)
        for port in svc["spec"]["ports"]:
            tp = port.get("targetPort")
            if isinstance(tp, str):
                ok = any(any(cp.get("name") == tp for c in pod_spec(w)["containers"] for cp in c.get("ports", []))
                         for w in pods)
                check(f"{p} Service {svc['metadata']['name']} targetPort {tp} exists", ok)

    # Every secretKeyRef / secret volume names a Secret rendered here (with the key) or one the
    # values say exists already.
    rendered = {d["metadata"]["name"]: d for d in find(docs, "Secret")}
    for w in workloads:
        spec = pod_spec(w)
        for c in spec.get("containers", []) + spec.get("initContainers", []):
            for e in c.get("env", []):
                ref = e.get("valueFrom", {}).get("secretKeyRef")
                if not ref:
                    continue
                name, key = ref["name"], ref["key"]
                if name in rendered:
                    check(f"{p} {w['metadata']['name']} env {e['name']}: Secret {name} has key {key}",
                          key in (rendered[name].get("data") or {}))
                else:
                    check(f"{p} {w['metadata']['name']} env {e['name']}: Secret {name} is an existingSecret",
                          name in existing_secrets, f"not rendered and not in values: {name}")
        for v in spec.get("volumes", []):
            sec = v.get("secret")
            if not sec:
                continue
            name = sec["secretName"]
            if name in rendered:
                keys = [i["key"] for i in sec.get("items", [])]
                missing = [k for k in keys if k not in (rendered[name].get("data") or {})]
                check(f"{p} {w['metadata']['name']} volume {v['name']}: keys present in {name}", not missing, str(missing))
            else:
                check(f"{p} {w['metadata']['name']} volume {v['name']}: {name} is an existingSecret",
                      name in existing_secrets)

    # Images are pinned (no :latest, no missing tag).
    for w in workloads:
        for c in pod_spec(w)["containers"]:
            img = c["image"]
            check(f"{p} {w['metadata']['name']}/{c['name']} image pinned ({img})",
                  ("@sha256:" in img or re.search(r":[^/:]+$", img)) and not img.endswith(":latest"))

    # Planes' security: non-root, read-only root file system, no privilege escalation.
    for w in workloads:
        spec = pod_spec(w)
        psc = spec.get("securityContext", {})
        for c in spec["containers"]:
            csc = c.get("securityContext", {})
            who = f"{w['metadata']['name']}/{c['name']}"
            non_root = (csc.get("runAsNonRoot", psc.get("runAsNonRoot")) is True
                        and csc.get("runAsUser", psc.get("runAsUser", 1)) != 0)
            check(f"{p} {who} runs as non-root", non_root)
            check(f"{p} {who} read-only root file system", csc.get("readOnlyRootFilesystem") is True)
            check(f"{p} {who} no privilege escalation, capabilities dropped",
                  csc.get("allowPrivilegeEscalation") is False and "ALL" in csc.get("capabilities", {}).get("drop", []))
        check(f"{p} {w['metadata']['name']} no service account token", spec.get("automountServiceAccountToken") is False)

    # The gateway's control-plane URL names the gRPC Service and port; the control plane serves
    # gRPC on that port's target.
    gw = one(docs, "Deployment", "-gateway")
    cp = one(docs, "Deployment", "-control-plane")
    gwc, cpc = container(gw, "gateway"), container(cp, "control-plane")
    url = arg_value(gwc["args"], "--control-plane") or ""
    m = re.match(r"^(https?)://([^.:/]+)\.([^.]+)\.svc\.[^:]+:(\d+)$", url)
    check(f"{p} gateway --control-plane is a Service URL", m, url)
    if m:
        grpc_svc = find(docs, "Service", lambda d: d["metadata"]["name"] == m.group(2))
        check(f"{p} gateway --control-plane names the gRPC Service", grpc_svc, m.group(2))
        if grpc_svc:
            port = grpc_svc[0]["spec"]["ports"][0]
            check(f"{p} gRPC Service port matches the URL", port["port"] == int(m.group(4)))
            cport = next((x for x in cpc["ports"] if x["name"] == port["targetPort"]), None)
            grpc_listen = arg_value(cpc["args"], "--grpc-listen")
            check(f"{p} control plane --grpc-listen serves the gRPC Service's target port",
                  cport and grpc_listen and port_of(grpc_listen) == cport["containerPort"])
    check(f"{p} control plane subcommand is serve (last)", cpc["args"][-1] == "serve")
    listen = arg_value(cpc["args"], "--listen")
    http_port = next(x for x in cpc["ports"] if x["name"] == "http")["containerPort"]
    check(f"{p} control plane --listen is its http port", listen and port_of(listen) == http_port)

    # Probes on the admin port paths; the admin port is --admin-listen.
    admin = next(x for x in gwc["ports"] if x["name"] == "admin")["containerPort"]
    check(f"{p} gateway --admin-listen is the admin containerPort",
          port_of(arg_value(gwc["args"], "--admin-listen") or ":0") == admin)
    rp, lp = gwc.get("readinessProbe", {}).get("httpGet", {}), gwc.get("livenessProbe", {}).get("httpGet", {})
    check(f"{p} gateway readiness probe GET /readyz on the admin port",
          rp.get("path") == "/readyz" and rp.get("port") in ("admin", admin))
    check(f"{p} gateway liveness probe GET /healthz on the admin port",
          lp.get("path") == "/healthz" and lp.get("port") in ("admin", admin))

    # The control plane's metrics and health are on its own admin listener, not on --listen.
    cp_admin = next((x for x in cpc["ports"] if x["name"] == "admin"), {}).get("containerPort")
    cp_admin_listen = arg_value(cpc["args"], "--admin-listen")
    check(f"{p} control plane --admin-listen is its admin containerPort",
          cp_admin and cp_admin_listen and port_of(cp_admin_listen) == cp_admin, str(cp_admin_listen))
    check(f"{p} control plane admin port differs from its http and grpc ports",
          cp_admin and cp_admin not in {x["containerPort"] for x in cpc["ports"] if x["name"] != "admin"})
    rp, lp = cpc.get("readinessProbe", {}).get("httpGet", {}), cpc.get("livenessProbe", {}).get("httpGet", {})
    sp = cpc.get("startupProbe", {})
    check(f"{p} control plane readiness probe GET /readyz on the admin port",
          rp.get("path") == "/readyz" and rp.get("port") in ("admin", cp_admin))
    check(f"{p} control plane liveness probe GET /healthz on the admin port (a database outage restarts nothing)",
          lp.get("path") == "/healthz" and lp.get("port") in ("admin", cp_admin))
    check(f"{p} control plane startup probe allows for migrations (>= 5 min)",
          sp and sp.get("periodSeconds", 10) * sp.get("failureThreshold", 3) >= 300)
    for d, port in ((gw, admin), (cp, cp_admin)):
        ann = d["spec"]["template"]["metadata"].get("annotations", {})
        if "prometheus.io/scrape" in ann:
            check(f"{p} {d['metadata']['name']} prometheus.io/port is its admin port",
                  ann.get("prometheus.io/port") == str(port) and ann.get("prometheus.io/path") == "/metrics", str(ann))

    # Admin ports are on cluster-internal Services of their own, apart from client traffic.
    for d, comp in ((gw, "gateway"), (cp, "control-plane")):
        pod_labels = d["spec"]["template"]["metadata"]["labels"]
        svcs = [s for s in find(docs, "Service") if matches(s["spec"].get("selector", {}), pod_labels)]
        admin_svcs = [s for s in svcs if any(pt.get("targetPort") == "admin" for pt in s["spec"]["ports"])]
        check(f"{p} {comp} admin port on one ClusterIP Service with nothing else",
              len(admin_svcs) == 1 and admin_svcs[0]["spec"].get("type", "ClusterIP") == "ClusterIP"
              and all(pt.get("targetPort") == "admin" for pt in admin_svcs[0]["spec"]["ports"]),
              str([s["metadata"]["name"] for s in admin_svcs]))
        check(f"{p} {comp}: only the admin Service carries the ai-gateway/metrics label",
              [s["metadata"]["name"] for s in svcs if s["metadata"]["labels"].get("ai-gateway/metrics") == "true"]
              == [s["metadata"]["name"] for s in admin_svcs])

    # preStop is the kubelet's sleep action (no shell in the image) and the grace period covers
    # preStop + drain + grace + shutdown.
    pre = gwc.get("lifecycle", {}).get("preStop", {})
    check(f"{p} gateway preStop uses the sleep action (no exec: distroless has no shell)",
          "sleep" in pre and "exec" not in pre)
    sleep_s = pre.get("sleep", {}).get("seconds", 0)
    drain = int(arg_value(gwc["args"], "--drain-seconds") or -1)
    grace = int(arg_value(gwc["args"], "--grace-period-seconds") or -1)
    stop = int(arg_value(gwc["args"], "--shutdown-timeout-seconds") or -1)
    tgp = pod_spec(gw).get("terminationGracePeriodSeconds", 30)
    check(f"{p} gateway terminationGracePeriodSeconds ({tgp}) >= preStop {sleep_s} + drain {drain} + grace {grace}"
          f" + shutdown {stop} + final usage delivery {SPOOL_DELIVERY_S}",
          min(drain, grace, stop) >= 0 and tgp >= sleep_s + drain + grace + stop + SPOOL_DELIVERY_S)
    cp_pre = cpc.get("lifecycle", {}).get("preStop", {})
    cp_stop = int(arg_value(cpc["args"], "--shutdown-timeout") or -1)
    check(f"{p} control plane grace period covers preStop + --shutdown-timeout",
          "sleep" in cp_pre and pod_spec(cp).get("terminationGracePeriodSeconds", 30)
          >= cp_pre["sleep"]["seconds"] + cp_stop)

    # Spread across nodes.
    for d, comp in ((gw, "gateway"), (cp, "control-plane")):
        tsc = pod_spec(d).get("topologySpreadConstraints", [])
        check(f"{p} {comp} spreads across nodes",
              any(t["topologyKey"] == "kubernetes.io/hostname" and t["labelSelector"]["matchLabels"].get(
                  "app.kubernetes.io/component") == comp for t in tsc))

    # The spool is a volume (emptyDir or a per-pod PVC) mounted at --spool-dir.
    spool_dir = arg_value(gwc["args"], "--spool-dir")
    mount = next((m for m in gwc["volumeMounts"] if m["mountPath"] == spool_dir), None)
    vol = next((v for v in pod_spec(gw)["volumes"] if mount and v["name"] == mount["name"]), {})
    check(f"{p} gateway spool dir {spool_dir} is a writable volume",
          mount and not mount.get("readOnly") and ("emptyDir" in vol or "ephemeral" in vol))
    check(f"{p} /tmp is writable in every plane",
          all(any(m["mountPath"] == "/tmp" for m in container(d, n)["volumeMounts"])
              for d, n in ((gw, "gateway"), (cp, "control-plane"))))

    # Migration Job: a hook running `control-plane migrate` with the database URL from a Secret.
    jobs = find(docs, "Job")
    check(f"{p} one migration Job", len(jobs) == 1)
    if jobs:
        job = jobs[0]
        ann = job["metadata"].get("annotations", {})
        hooks = set(ann.get("helm.sh/hook", "").split(","))
        check(f"{p} migration Job is a pre-upgrade hook with an install hook",
              "pre-upgrade" in hooks and hooks & {"pre-install", "post-install"}, str(hooks))
        check(f"{p} migration Job hook-delete-policy set", "before-hook-creation" in ann.get("helm.sh/hook-delete-policy", ""))
        jc = pod_spec(job)["containers"][0]
        check(f"{p} migration Job runs `control-plane migrate`", jc["args"][-1] == "migrate" and jc["image"] == cpc["image"])
        db = env_of(jc, "DATABASE_URL")
        check(f"{p} migration Job reads DATABASE_URL from a Secret", db and "secretKeyRef" in db.get("valueFrom", {}))
        check(f"{p} migration Job never restarts in place", pod_spec(job)["restartPolicy"] == "Never")
        # A hook Secret it needs must be created before it (lower weight, pre-install).
        dbname = db["valueFrom"]["secretKeyRef"]["name"] if db else ""
        dbsec = [s for s in find(docs, "Secret") if s["metadata"]["name"] == dbname]
        if dbsec:
            sann = dbsec[0]["metadata"].get("annotations", {})
            check(f"{p} chart-made database Secret is a pre-install hook before the Job",
                  "pre-install" in sann.get("helm.sh/hook", "")
                  and int(sann.get("helm.sh/hook-weight", "0")) < int(ann.get("helm.sh/hook-weight", "0")))
        if "pre-install" in hooks:
            check(f"{p} a pre-install Job does not depend on the chart's ServiceAccount",
                  "serviceAccountName" not in pod_spec(job)
                  or not find(docs, "ServiceAccount", lambda d: d["metadata"]["name"] == pod_spec(job)["serviceAccountName"]))

    # Secrets never inlined in env.
    for w in workloads:
        for c in pod_spec(w)["containers"]:
            for e in c.get("env", []):
                if e["name"] in ("DATABASE_URL", "REDIS_URL", "GATEWAY_SYNC_TOKEN", "ENCRYPTION_KEY",
                                 "SETUP_TOKEN", "POSTGRES_PASSWORD", "REDIS_PASSWORD",
                                 "OTEL_EXPORTER_OTLP_HEADERS"):
                    check(f"{p} {w['metadata']['name']} {e['name']} comes from a Secret",
                          "value" not in e and "secretKeyRef" in e.get("valueFrom", {}))
            check(f"{p} {w['metadata']['name']}/{c['name']} has no credential in its args",
                  not any(re.search(r"(token|password|key)=[^/]", a, re.I) and "-file=" not in a
                          and not a.startswith(("--client-key=", "--grpc-tls-key="))
                          for a in c.get("args", [])))

    # Env: one entry per name (server-side apply refuses duplicates), and every $(VAR) names a
    # variable defined before it (Kubernetes leaves others unexpanded).
    for w in workloads:
        for c in pod_spec(w)["containers"]:
            names = [e["name"] for e in c.get("env", [])]
            dup = sorted({n for n in names if names.count(n) > 1})
            check(f"{p} {w['metadata']['name']}/{c['name']} env names unique", not dup, str(dup))
            for i, e in enumerate(c.get("env", [])):
                refs = re.findall(r"(?<!\$)\$\((\w+)\)", e.get("value", ""))
                if refs:
                    check(f"{p} {w['metadata']['name']} {e['name']}: $(...) names earlier variables",
                          all(r in names[:i] for r in refs), str(refs))

    # NetworkPolicy: the control plane's gRPC port only from gateway pods.
    nps = find(docs, "NetworkPolicy", lambda d: d["spec"]["podSelector"]["matchLabels"].get(
        "app.kubernetes.io/component") == "control-plane")
    check(f"{p} a NetworkPolicy selects the control plane", len(nps) == 1)
    if nps:
        np = nps[0]
        cp_labels = cp["spec"]["template"]["metadata"]["labels"]
        gw_labels = gw["spec"]["template"]["metadata"]["labels"]
        check(f"{p} NetworkPolicy selects the control-plane pods", matches(np["spec"]["podSelector"]["matchLabels"], cp_labels)
              and not matches(np["spec"]["podSelector"]["matchLabels"], gw_labels))
        check(f"{p} NetworkPolicy restricts ingress", "Ingress" in np["spec"].get("policyTypes", []))
        grpc_port = next(x for x in cpc["ports"] if x["name"] == "grpc")
        rules = np["spec"].get("ingress", [])
        # A rule without ports opens every port: none may exist.
        check(f"{p} every NetworkPolicy rule names its ports", all(r.get("ports") for r in rules))
        grpc_rules = [r for r in rules if any(pt.get("port") in ("grpc", grpc_port["containerPort"]) for pt in r.get("ports", []))]
        check(f"{p} NetworkPolicy has a rule for the gRPC port", grpc_rules)
        only_gw = all(
            r.get("from") and all(set(f) == {"podSelector"} and matches(f["podSelector"]["matchLabels"], gw_labels)
                                  and not matches(f["podSelector"]["matchLabels"], cp_labels) for f in r["from"])
            for r in grpc_rules)
        check(f"{p} NetworkPolicy admits only gateway pods to the gRPC port", only_gw)
        http_rules = [r for r in rules if any(pt.get("port") == "http" for pt in r.get("ports", []))]
        check(f"{p} NetworkPolicy keeps the HTTP port open (console, API)", http_rules)
        open_ports = {pt.get("port") for r in rules if not r.get("from") for pt in r.get("ports", [])}
        check(f"{p} NetworkPolicy opens only the HTTP port to every source", open_ports <= {"http", http_port},
              str(open_ports))
        cp_admin = next(x for x in cpc["ports"] if x["name"] == "admin")["containerPort"]
        admin_rules = [r for r in rules if any(pt.get("port") in ("admin", cp_admin) for pt in r.get("ports", []))]
        check(f"{p} NetworkPolicy admits only named peers to the admin port",
              all(r.get("from") and all(f for f in r["from"]) for r in admin_rules), str(admin_rules))
        check(f"{p} NetworkPolicy admin rule carries no other port",
              all({pt.get("port") for pt in r["ports"]} <= {"admin", cp_admin} for r in admin_rules))


# ---------------------------------------------------------------------------------------------
def default_checks(docs: list[dict], values: dict) -> None:
    p = "default:"
    gw = one(docs, "Deployment", "-gateway")
    check(f"{p} no ServiceMonitor without the Prometheus Operator API", not find(docs, "ServiceMonitor"))
    hpa = find(docs, "HorizontalPodAutoscaler")
    check(f"{p} HPA present", len(hpa) == 1)
    if hpa:
        h = hpa[0]
        check(f"{p} HPA targets the gateway Deployment",
              h["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": gw["metadata"]["name"]})
        cpu = [m for m in h["spec"]["metrics"] if m["type"] == "Resource" and m["resource"]["name"] == "cpu"]
        check(f"{p} HPA has a CPU utilisation target",
              cpu and cpu[0]["resource"]["target"]["type"] == "Utilization"
              and cpu[0]["resource"]["target"]["averageUtilization"] == values["gateway"]["autoscaling"]["targetCPUUtilizationPercentage"])
        check(f"{p} HPA without in-flight metric by default", not [m for m in h["spec"]["metrics"] if m["type"] == "Pods"])
        check(f"{p} Deployment leaves replicas to the HPA", "replicas" not in gw["spec"])
        check(f"{p} gateway requests CPU (the HPA's utilisation base)",
              container(gw, "gateway")["resources"].get("requests", {}).get("cpu"))
    pdbs = {d["metadata"]["name"]: d for d in find(docs, "PodDisruptionBudget")}
    g = pdbs.get(gw["metadata"]["name"])
    check(f"{p} gateway PDB with minAvailable {values['gateway']['podDisruptionBudget']['minAvailable']}",
          g and g["spec"].get("minAvailable") == values["gateway"]["podDisruptionBudget"]["minAvailable"]
          and matches(g["spec"]["selector"]["matchLabels"], gw["spec"]["template"]["metadata"]["labels"]))
    check(f"{p} control-plane PDB with maxUnavailable",
          any(d["spec"].get("maxUnavailable") == 1 for n, d in pdbs.items() if n.endswith("-control-plane")))
    job = find(docs, "Job")[0]
    check(f"{p} bundled PostgreSQL: migration hook is post-install (the database is a release object)",
          job["metadata"]["annotations"]["helm.sh/hook"] == "post-install,pre-upgrade")
    sts = {component(d) for d in find(docs, "StatefulSet")}
    check(f"{p} bundled PostgreSQL and Redis StatefulSets", sts == {"postgresql", "redis"}, str(sts))
    creds = find(docs, "Secret", lambda d: d["metadata"]["name"].endswith("-credentials"))
    check(f"{p} generated credentials Secret kept on uninstall",
          creds and creds[0]["metadata"]["annotations"].get("helm.sh/resource-policy") == "keep")
    gwc = container(gw, "gateway")
    check(f"{p} gateway REDIS_URL from the Redis Secret",
          (env_of(gwc, "REDIS_URL") or {}).get("valueFrom", {}).get("secretKeyRef", {}).get("name", "").endswith("-redis"))
    check(f"{p} gateway sync token from a mounted file", arg_value(gwc["args"], "--sync-token-file"))
    nps = {component(d) for d in find(docs, "NetworkPolicy")}
    check(f"{p} NetworkPolicies for control plane, PostgreSQL, Redis", nps == {"control-plane", "postgresql", "redis"}, str(nps))
    np = one(docs, "NetworkPolicy", "-control-plane")
    admin_from = [r["from"] for r in np["spec"]["ingress"] if any(pt["port"] == "admin" for pt in r["ports"])]
    check(f"{p} control plane admin port admits networkPolicy.adminFrom (in-cluster pods, not the world)",
          admin_from == [values["networkPolicy"]["adminFrom"]] and all(f for f in admin_from[0]), str(admin_from))
    check(f"{p} no Ingress by default", not find(docs, "Ingress"))
    check(f"{p} tracing off by default: no OTEL_ variable in any workload",
          not values["tracing"]["enabled"]
          and not [n for w in find(docs, "Deployment") + find(docs, "StatefulSet") + find(docs, "Job") for n in otel_env(w)],
          str([(w["metadata"]["name"], otel_env(w)) for w in find(docs, "Deployment") if otel_env(w)]))


def monitoring_checks(docs: list[dict]) -> None:
    p = "monitoring:"
    sms = find(docs, "ServiceMonitor")
    check(f"{p} two ServiceMonitors with the monitoring.coreos.com/v1 API", len(sms) == 2)
    services = find(docs, "Service")
    for sm in sms:
        sel = sm["spec"]["selector"]["matchLabels"]
        svcs = [s for s in services if matches(sel, s["metadata"]["labels"])]
        check(f"{p} ServiceMonitor {sm['metadata']['name']} selects exactly one Service", len(svcs) == 1,
              str([s["metadata"]["name"] for s in svcs]))
        if svcs:
            port = sm["spec"]["endpoints"][0]["port"]
            check(f"{p} ServiceMonitor {sm['metadata']['name']} port {port} exists on the Service",
                  any(pt["name"] == port for pt in svcs[0]["spec"]["ports"]))
            check(f"{p} ServiceMonitor {sm['metadata']['name']} scrapes /metrics", sm["spec"]["endpoints"][0]["path"] == "/metrics")
    gw_sm = [s for s in sms if component(s) == "gateway"]
    check(f"{p} the gateway is scraped on its admin port", gw_sm and gw_sm[0]["spec"]["endpoints"][0]["port"] == "admin")
    cp_sm = [s for s in sms if component(s) == "control-plane"]
    check(f"{p} the control plane is scraped on its admin port",
          cp_sm and [e["port"] for e in cp_sm[0]["spec"]["endpoints"]] == ["admin"])
    # Scraped labels never replace the target's own (job, instance, namespace).
    check(f"{p} the control plane's ServiceMonitor does not honor scraped labels",
          cp_sm and not any(e.get("honorLabels") for e in cp_sm[0]["spec"]["endpoints"]))


def production_checks(docs: list[dict], values: dict, defaults: dict) -> None:
    p = "production:"
    check(f"{p} no Secret rendered: every credential comes from an existingSecret", not find(docs, "Secret"),
          str([d["metadata"]["name"] for d in find(docs, "Secret")]))
    check(f"{p} no bundled data store", not find(docs, "StatefulSet"))
    gw = one(docs, "Deployment", "-gateway")
    cp = one(docs, "Deployment", "-control-plane")
    gwc, cpc = container(gw, "gateway"), container(cp, "control-plane")

    def ref(c: dict, name: str) -> tuple[str, str] | None:
        e = env_of(c, name)
        r = (e or {}).get("valueFrom", {}).get("secretKeyRef")
        return (r["name"], r["key"]) if r else None

    pg, rd = values["postgresql"]["external"], values["redis"]["external"]
    check(f"{p} DATABASE_URL from {pg['existingSecret']}", ref(cpc, "DATABASE_URL") == (pg["existingSecret"], pg["urlKey"]))
    check(f"{p} REDIS_URL from {rd['existingSecret']}", ref(gwc, "REDIS_URL") == (rd["existingSecret"], rd["urlKey"]))
    st, ek = values["syncToken"], values["encryptionKey"]
    check(f"{p} GATEWAY_SYNC_TOKEN from {st['existingSecret']}", ref(cpc, "GATEWAY_SYNC_TOKEN") == (st["existingSecret"], st["key"]))
    check(f"{p} ENCRYPTION_KEY from {ek['existingSecret']}", ref(cpc, "ENCRYPTION_KEY") == (ek["existingSecret"], ek["key"]))
    tok_vol = next(v for v in pod_spec(gw)["volumes"] if v["name"] == "sync-token")
    check(f"{p} gateway sync token file from {st['existingSecret']}", tok_vol["secret"]["secretName"] == st["existingSecret"])
    text = yaml.safe_dump_all(docs)
    check(f"{p} no URL with credentials anywhere in the manifests", not re.search(r"\w+://[^\s/@]+:[^\s/@]+@", text))

    job = find(docs, "Job")[0]
    check(f"{p} external database: migration hook is pre-install,pre-upgrade",
          job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade")

    hpa = find(docs, "HorizontalPodAutoscaler")
    check(f"{p} HPA present", len(hpa) == 1)
    if hpa:
        spec = hpa[0]["spec"]
        check(f"{p} HPA minReplicas >= 3", spec["minReplicas"] >= 3 and spec["maxReplicas"] >= spec["minReplicas"])
        check(f"{p} HPA CPU target", any(m["type"] == "Resource" and m["resource"]["name"] == "cpu" for m in spec["metrics"]))
        pods = [m for m in spec["metrics"] if m["type"] == "Pods"]
        check(f"{p} HPA in-flight requests metric gateway_in_flight_requests",
              pods and pods[0]["pods"]["metric"]["name"] == "gateway_in_flight_requests"
              and pods[0]["pods"]["target"]["type"] == "AverageValue")
        check(f"{p} HPA behavior passed through", spec.get("behavior", {}).get("scaleDown", {}).get("stabilizationWindowSeconds") == 600)
    pdb = next(d for d in find(docs, "PodDisruptionBudget") if d["metadata"]["name"] == gw["metadata"]["name"])
    check(f"{p} gateway PDB minAvailable 2 (no maxUnavailable)", pdb["spec"].get("minAvailable") == 2 and "maxUnavailable" not in pdb["spec"])
    check(f"{p} control plane replicas >= 2", cp["spec"]["replicas"] >= 2)
    check(f"{p} gateway resources set", gwc["resources"]["requests"]["cpu"] == "2" and gwc["resources"]["limits"]["memory"])
    tsc = pod_spec(gw)["topologySpreadConstraints"]
    check(f"{p} gateway spread across nodes and zones",
          {t["topologyKey"] for t in tsc} == {"kubernetes.io/hostname", "topology.kubernetes.io/zone"})

    # mTLS between the planes.
    url = arg_value(gwc["args"], "--control-plane") or ""
    check(f"{p} gateways dial https", url.startswith("https://"))
    for flag in ("--control-plane-ca", "--client-cert", "--client-key"):
        check(f"{p} gateway {flag}", arg_value(gwc["args"], flag))
    for flag in ("--grpc-tls-cert", "--grpc-tls-key", "--grpc-client-ca"):
        check(f"{p} control plane {flag}", arg_value(cpc["args"], flag))
    gw_secret_items = [(v["secret"]["secretName"], i["key"]) for v in pod_spec(gw)["volumes"] if "secret" in v
                       for i in v["secret"].get("items", [])]
    check(f"{p} gateways get the server CA but never the server key",
          (values["grpcTls"]["existingSecret"], "ca.crt") in gw_secret_items
          and (values["grpcTls"]["existingSecret"], "tls.key") not in gw_secret_items)
    check(f"{p} secure cookies always", arg_value(cpc["args"], "--secure-cookies") == "always")

    ing = find(docs, "Ingress")
    check(f"{p} Ingress present with TLS", len(ing) == 1 and ing[0]["spec"].get("tls"))
    if ing:
        paths = [(pth["path"], pth["pathType"], pth["backend"]["service"]["name"])
                 for r in ing[0]["spec"]["rules"] for pth in r["http"]["paths"]]
        for relay in defaults["ingress"]["relayPaths"]:
            check(f"{p} Ingress {relay} -> gateway", (relay, "Prefix", gw["metadata"]["name"]) in paths)
        check(f"{p} Ingress / -> control plane", ("/", "Prefix", cp["metadata"]["name"]) in paths)
        check(f"{p} Ingress relay paths come before the catch-all", paths[-1][0] == "/")
        svc_ports = {(s["metadata"]["name"], pt["name"]) for s in find(docs, "Service") for pt in s["spec"]["ports"]}
        check(f"{p} Ingress backends exist", all((pth["backend"]["service"]["name"], pth["backend"]["service"]["port"]["name"]) in svc_ports
                                                 for r in ing[0]["spec"]["rules"] for pth in r["http"]["paths"]))
        ingress_checks(p, docs, ing[0])
    sms = find(docs, "ServiceMonitor")
    check(f"{p} ServiceMonitors forced on (no CRD at render time)", len(sms) == 2)
    check(f"{p} ServiceMonitor labels for the Prometheus selector", all(s["metadata"]["labels"].get("release") == "prometheus" for s in sms))
    tracing_checks(p, docs, values["tracing"])
    check(f"{p} the migration Job exports no traces", not otel_env(job))
    nps = {component(d) for d in find(docs, "NetworkPolicy")}
    check(f"{p} only the control-plane NetworkPolicy (no bundled stores)", nps == {"control-plane"}, str(nps))
    check(f"{p} NetworkPolicies restrict ingress only (the collector stays reachable)",
          all(d["spec"].get("policyTypes") == ["Ingress"] and "egress" not in d["spec"] for d in find(docs, "NetworkPolicy")))
    np = one(docs, "NetworkPolicy", "-control-plane")
    admin_from = [r["from"] for r in np["spec"]["ingress"] if any(pt["port"] == "admin" for pt in r["ports"])]
    check(f"{p} control plane admin port admits only the monitoring namespace's Prometheus",
          admin_from == [values["networkPolicy"]["adminFrom"]], str(admin_from))


def variant_checks(docs: list[dict]) -> None:
    p = "variant:"
    gw = one(docs, "Deployment", "-gateway")
    cp = one(docs, "Deployment", "-control-plane")
    gwc, cpc = container(gw, "gateway"), container(cp, "control-plane")
    check(f"{p} no HPA when autoscaling is off; replicas set", not find(docs, "HorizontalPodAutoscaler") and gw["spec"].get("replicas") == 2)
    check(f"{p} Redis disabled: no REDIS_URL, no --redis-timeout-ms",
          not env_of(gwc, "REDIS_URL") and not arg_value(gwc["args"], "--redis-timeout-ms"))
    spool = next(v for v in pod_spec(gw)["volumes"] if v["name"] == "spool")
    check(f"{p} spool on a per-pod PVC (generic ephemeral volume)",
          spool.get("ephemeral", {}).get("volumeClaimTemplate", {}).get("spec", {}).get("resources", {}).get("requests", {}).get("storage") == "5Gi")
    check(f"{p} --forward-to from the pinned ClusterIP", arg_value(gwc["args"], "--forward-to") == "10.96.0.50:80")
    svc = one(docs, "Service", "-control-plane")
    check(f"{p} control-plane Service has the pinned ClusterIP", svc["spec"].get("clusterIP") == "10.96.0.50")
    job = find(docs, "Job")[0]
    check(f"{p} external database: pre-install migration hook", job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade")
    check(f"{p} the in-flight metric needs the HPA: none rendered", not find(docs, "HorizontalPodAutoscaler"))

    secrets = {d["metadata"]["name"]: d for d in find(docs, "Secret")}
    server = next((s for n, s in secrets.items() if n.endswith("-grpc-server-tls")), None)
    client = next((s for n, s in secrets.items() if n.endswith("-grpc-client-tls")), None)
    check(f"{p} generated gRPC server and client TLS Secrets", server and client)
    if server and client:
        check(f"{p} TLS Secrets have ca.crt, tls.crt, tls.key",
              all(set(s["data"]) == {"ca.crt", "tls.crt", "tls.key"} and s["type"] == "kubernetes.io/tls" for s in (server, client)))
        check(f"{p} both certificates from one CA", server["data"]["ca.crt"] == client["data"]["ca.crt"])
        url = arg_value(gwc["args"], "--control-plane") or ""
        host = url.split("://", 1)[-1].rsplit(":", 1)[0]
        sans = cert_sans(server["data"]["tls.crt"])
        if sans is None:
            print("  (certificate SANs not checked: this Python cannot decode certificates)")
        else:
            check(f"{p} server certificate names the host gateways dial ({host})", host in sans, str(sans))
    check(f"{p} control plane requires client certificates", arg_value(cpc["args"], "--grpc-client-ca"))
    check(f"{p} gRPC Service without h2c appProtocol under TLS",
          all("appProtocol" not in pt for pt in one(docs, "Service", "-control-plane-grpc")["spec"]["ports"]))
    ing = find(docs, "Ingress")
    check(f"{p} Ingress without TLS when none is given", ing and not ing[0]["spec"].get("tls"))
    if ing:
        ingress_checks(p, docs, ing[0])
    tracing_checks(p, docs, VARIANT_TRACING)
    dbsec = next((s for n, s in secrets.items() if n.endswith("-database")), None)
    check(f"{p} inline database URL goes into a chart-made hook Secret",
          dbsec and dbsec["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade")


def ingress_checks(p: str, docs: list[dict], ing: dict) -> None:
    """No Ingress path reaches an admin port (metrics, health), by Service port name or number."""
    svc_ports = {(s["metadata"]["name"], pt["name"]): pt for s in find(docs, "Service") for pt in s["spec"]["ports"]}
    svc_ports |= {(s["metadata"]["name"], pt["port"]): pt for s in find(docs, "Service") for pt in s["spec"]["ports"]}
    backends = [pth["backend"]["service"] for r in ing["spec"]["rules"] for pth in r["http"]["paths"]]
    targets = [svc_ports.get((b["name"], b["port"].get("name", b["port"].get("number"))), {}).get("targetPort") for b in backends]
    check(f"{p} Ingress reaches only http ports (no admin port: metrics stay internal)",
          targets and all(t == "http" for t in targets), str(targets))
    check(f"{p} Ingress has no /metrics path (neither plane serves metrics on its http port)",
          not any(pth["path"].rstrip("/") == "/metrics" for r in ing["spec"]["rules"] for pth in r["http"]["paths"]))


def cert_sans(b64pem: str) -> list[str] | None:
    import base64
    import ssl
    decode = getattr(getattr(ssl, "_ssl", None), "_test_decode_cert", None)
    if decode is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".pem", delete=False) as f:
        f.write(base64.b64decode(b64pem).decode())
        path = f.name
    try:
        info = decode(path)
    finally:
        os.unlink(path)
    return [v for k, v in info.get("subjectAltName", ()) if k == "DNS"]


def flag_checks(renders: dict[str, list[dict]], helps: dict[str, str]) -> None:
    """Every flag the chart passes exists in the binary's --help."""
    for binary, text in helps.items():
        known = set(re.findall(r"(--[a-z0-9][a-z0-9-]*)", text))
        for scenario, docs in renders.items():
            for w in find(docs, "Deployment") + find(docs, "Job"):
                for c in pod_spec(w)["containers"]:
                    if not c["image"].split("@")[0].rsplit(":", 1)[0].endswith(binary):
                        continue
                    for a in c.get("args", []):
                        if a.startswith("--"):
                            flag = a.split("=", 1)[0]
                            check(f"{scenario}: {w['metadata']['name']} flag {flag} is a {binary} flag", flag in known)
                        elif binary == "control-plane":
                            check(f"{scenario}: {w['metadata']['name']} subcommand {a} exists",
                                  re.search(rf"^\s+{re.escape(a)}\s", text, re.M))


def main() -> int:
    render_dir, chart_dir, kube_version = sys.argv[1:4]
    helps: dict[str, str] = {}
    for binary, path in zip(("gateway", "control-plane"), sys.argv[4:6]):
        if path and os.path.exists(path):
            helps[binary] = open(path, encoding="utf-8").read()
    defaults = yaml.safe_load(open(os.path.join(chart_dir, "values.yaml")))
    production = yaml.safe_load(open(os.path.join(chart_dir, "values-production.yaml")))
    renders = {name: load(os.path.join(render_dir, f"{name}.yaml"))
               for name in ("default", "monitoring", "production", "variant")}

    kinds = validate_all(renders, kube_version)
    prod_existing = {production["postgresql"]["external"]["existingSecret"], production["redis"]["external"]["existingSecret"],
                     production["syncToken"]["existingSecret"], production["encryptionKey"]["existingSecret"],
                     production["setupToken"]["existingSecret"], production["grpcTls"]["existingSecret"],
                     production["grpcTls"]["clientExistingSecret"]}
    for scenario, docs in renders.items():
        try:
            existing = (prod_existing if scenario == "production"
                        else {VARIANT_TRACING["headersSecret"]["name"]} if scenario == "variant" else set())
            common_checks(scenario, docs, existing)
        except (AssertionError, KeyError, StopIteration, TypeError) as e:
            check(f"{scenario}: common checks ran", False, f"{type(e).__name__}: {e}")
    for fn, args in ((default_checks, (renders["default"], defaults)),
                     (monitoring_checks, (renders["monitoring"],)),
                     (production_checks, (renders["production"], production, defaults)),
                     (variant_checks, (renders["variant"],))):
        try:
            fn(*args)
        except (AssertionError, KeyError, StopIteration, TypeError, IndexError) as e:
            check(f"{fn.__name__} ran", False, f"{type(e).__name__}: {e}")
    if helps:
        flag_checks(renders, helps)
    else:
        print("  (flags not checked against --help: no binaries)")

    counts = {n: len(d) for n, d in renders.items()}
    print(f"  rendered: {', '.join(f'{n} {c}' for n, c in counts.items())} objects; "
          f"kinds validated: {len(kinds)}")
    print(f"chart: {len(PASSED)} passed, {len(FAILED)} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
