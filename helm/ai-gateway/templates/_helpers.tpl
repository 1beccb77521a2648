{{/*
Names
*/}}
{{- define "ai-gateway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The prefix of every object's name (kept short enough for "-control-plane-grpc" suffixes). */}}
{{- define "ai-gateway.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "ai-gateway.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "ai-gateway.gateway.fullname" -}}{{ include "ai-gateway.fullname" . }}-gateway{{- end }}
{{- define "ai-gateway.controlPlane.fullname" -}}{{ include "ai-gateway.fullname" . }}-control-plane{{- end }}
{{- define "ai-gateway.controlPlane.grpcServiceName" -}}{{ include "ai-gateway.fullname" . }}-control-plane-grpc{{- end }}
{{- define "ai-gateway.postgresql.fullname" -}}{{ include "ai-gateway.fullname" . }}-postgresql{{- end }}
{{- define "ai-gateway.redis.fullname" -}}{{ include "ai-gateway.fullname" . }}-redis{{- end }}

{{/*
Labels. `ai-gateway.labels` takes (dict "ctx" $ "component" "gateway").
*/}}
{{- define "ai-gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ai-gateway.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "ai-gateway.labels" -}}
helm.sh/chart: {{ include "ai-gateway.chart" .ctx }}
{{ include "ai-gateway.selectorLabels" . }}
app.kubernetes.io/part-of: ai-gateway
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
{{- with .ctx.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "ai-gateway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "ai-gateway.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Image of a component: (dict "ctx" $ "image" .Values.gateway.image)
*/}}
{{- define "ai-gateway.image" -}}
{{- $g := .ctx.Values.image }}
{{- $repo := .image.repository }}
{{- if $g.registry }}{{ $repo = printf "%s/%s" (trimSuffix "/" $g.registry) $repo }}{{ end }}
{{- if .image.digest }}
{{- printf "%s@%s" $repo .image.digest }}
{{- else }}
{{- printf "%s:%s" $repo (.image.tag | default $g.tag | default .ctx.Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/*
Secrets: name and key of each value the pods read.
*/}}
{{- define "ai-gateway.credentialsSecretName" -}}{{ include "ai-gateway.fullname" . }}-credentials{{- end }}

{{- define "ai-gateway.syncToken.secretName" -}}
{{- .Values.syncToken.existingSecret | default (include "ai-gateway.credentialsSecretName" .) }}
{{- end }}
{{- define "ai-gateway.syncToken.key" -}}
{{- if .Values.syncToken.existingSecret }}{{ .Values.syncToken.key }}{{ else }}gateway-sync-token{{ end }}
{{- end }}

{{- define "ai-gateway.encryptionKey.secretName" -}}
{{- .Values.encryptionKey.existingSecret | default (include "ai-gateway.credentialsSecretName" .) }}
{{- end }}
{{- define "ai-gateway.encryptionKey.key" -}}
{{- if .Values.encryptionKey.existingSecret }}{{ .Values.encryptionKey.key }}{{ else }}encryption-key{{ end }}
{{- end }}

{{/* The chart makes the database Secret for the bundled PostgreSQL or an inline external URL. */}}
{{- define "ai-gateway.database.chartSecret" -}}
{{- if or (eq .Values.postgresql.mode "bundled") (not .Values.postgresql.external.existingSecret) }}true{{ end }}
{{- end }}
{{- define "ai-gateway.database.secretName" -}}
{{- if include "ai-gateway.database.chartSecret" . }}{{ include "ai-gateway.fullname" . }}-database{{ else }}{{ .Values.postgresql.external.existingSecret }}{{ end }}
{{- end }}
{{- define "ai-gateway.database.key" -}}
{{- if include "ai-gateway.database.chartSecret" . }}database-url{{ else }}{{ .Values.postgresql.external.urlKey }}{{ end }}
{{- end }}

{{- define "ai-gateway.redis.chartSecret" -}}
{{- if or (eq .Values.redis.mode "bundled") (and (eq .Values.redis.mode "external") (not .Values.redis.external.existingSecret)) }}true{{ end }}
{{- end }}
{{- define "ai-gateway.redis.secretName" -}}
{{- if include "ai-gateway.redis.chartSecret" . }}{{ include "ai-gateway.fullname" . }}-redis{{ else }}{{ .Values.redis.external.existingSecret }}{{ end }}
{{- end }}
{{- define "ai-gateway.redis.key" -}}
{{- if include "ai-gateway.redis.chartSecret" . }}redis-url{{ else }}{{ .Values.redis.external.urlKey }}{{ end }}
{{- end }}

{{- define "ai-gateway.grpcTls.serverSecretName" -}}
{{- .Values.grpcTls.existingSecret | default (printf "%s-grpc-server-tls" (include "ai-gateway.fullname" .)) }}
{{- end }}
{{- define "ai-gateway.grpcTls.clientSecretName" -}}
{{- .Values.grpcTls.clientExistingSecret | default (printf "%s-grpc-client-tls" (include "ai-gateway.fullname" .)) }}
{{- end }}

{{/*
The gateways' view of the control plane.
*/}}
{{- define "ai-gateway.controlPlane.grpcHost" -}}
{{- printf "%s.%s.svc.%s" (include "ai-gateway.controlPlane.grpcServiceName" .) .Release.Namespace .Values.clusterDomain }}
{{- end }}

{{- define "ai-gateway.controlPlane.grpcUrl" -}}
{{- printf "%s://%s:%d" (ternary "https" "http" .Values.grpcTls.enabled) (include "ai-gateway.controlPlane.grpcHost" .) (int .Values.controlPlane.grpcService.port) }}
{{- end }}

{{- define "ai-gateway.gateway.forwardTo" -}}
{{- if .Values.gateway.forwardTo }}
{{- .Values.gateway.forwardTo }}
{{- else if .Values.controlPlane.service.clusterIP }}
{{- $ip := .Values.controlPlane.service.clusterIP }}
{{- if contains ":" $ip }}{{ printf "[%s]:%d" $ip (int .Values.controlPlane.service.port) }}{{ else }}{{ printf "%s:%d" $ip (int .Values.controlPlane.service.port) }}{{ end }}
{{- end }}
{{- end }}

{{/* host:port for a listener; brackets IPv6 hosts. */}}
{{- define "ai-gateway.hostPort" -}}
{{- if contains ":" .host }}{{ printf "[%s]:%d" .host (int .port) }}{{ else }}{{ printf "%s:%d" .host (int .port) }}{{ end }}
{{- end }}

{{/*
Termination grace periods: at least what the shutdown sequence can take. The gateway's sequence
after SIGTERM: drain, grace period, runtime shutdown, then a final delivery of the usage queue
and spool to the control plane for up to 10 s (fixed in the gateway).
*/}}
{{- define "ai-gateway.gateway.spoolDeliverySeconds" -}}10{{- end }}

{{- define "ai-gateway.gateway.terminationGracePeriodSeconds" -}}
{{- $s := .Values.gateway.shutdown }}
{{- $needed := add $s.preStopSleepSeconds $s.drainSeconds $s.gracePeriodSeconds $s.shutdownTimeoutSeconds (include "ai-gateway.gateway.spoolDeliverySeconds" . | int) }}
{{- if kindIs "invalid" $s.terminationGracePeriodSeconds }}
{{- add $needed 5 }}
{{- else if lt (int $s.terminationGracePeriodSeconds) (int $needed) }}
{{- fail (printf "gateway.shutdown.terminationGracePeriodSeconds (%v) is shorter than preStopSleepSeconds + drainSeconds + gracePeriodSeconds + shutdownTimeoutSeconds + 10 s of final usage delivery (%v): Kubernetes would kill gateways mid-drain" $s.terminationGracePeriodSeconds $needed) }}
{{- else }}
{{- int $s.terminationGracePeriodSeconds }}
{{- end }}
{{- end }}

{{- define "ai-gateway.controlPlane.terminationGracePeriodSeconds" -}}
{{- $c := .Values.controlPlane }}
{{- $needed := add $c.preStopSleepSeconds $c.shutdownTimeoutSeconds }}
{{- if kindIs "invalid" $c.terminationGracePeriodSeconds }}
{{- add $needed 10 }}
{{- else if lt (int $c.terminationGracePeriodSeconds) (int $needed) }}
{{- fail (printf "controlPlane.terminationGracePeriodSeconds (%v) is shorter than preStopSleepSeconds + shutdownTimeoutSeconds (%v)" $c.terminationGracePeriodSeconds $needed) }}
{{- else }}
{{- int $c.terminationGracePeriodSeconds }}
{{- end }}
{{- end }}

{{/*
Render-time checks of combinations the schema cannot express well.
*/}}
{{- define "ai-gateway.validate" -}}
{{- if and (eq .Values.postgresql.mode "external") (not .Values.postgresql.external.url) (not .Values.postgresql.external.existingSecret) }}
{{- fail "postgresql.mode=external needs postgresql.external.existingSecret (preferred) or postgresql.external.url" }}
{{- end }}
{{- if and (eq .Values.redis.mode "external") (not .Values.redis.external.url) (not .Values.redis.external.existingSecret) }}
{{- fail "redis.mode=external needs redis.external.existingSecret (preferred) or redis.external.url" }}
{{- end }}
{{- if and .Values.grpcTls.mtls (not .Values.grpcTls.enabled) }}
{{- fail "grpcTls.mtls needs grpcTls.enabled" }}
{{- end }}
{{- if and .Values.grpcTls.enabled .Values.grpcTls.existingSecret .Values.grpcTls.mtls (not .Values.grpcTls.clientExistingSecret) }}
{{- fail "grpcTls.mtls with grpcTls.existingSecret needs grpcTls.clientExistingSecret (a client certificate signed by the CA in ca.crt)" }}
{{- end }}
{{- if and .Values.gateway.autoscaling.enabled (gt (int .Values.gateway.autoscaling.minReplicas) (int .Values.gateway.autoscaling.maxReplicas)) }}
{{- fail "gateway.autoscaling.minReplicas is greater than maxReplicas" }}
{{- end }}
{{- $cpp := .Values.controlPlane.ports }}
{{- if or (eq (int $cpp.http) (int $cpp.grpc)) (eq (int $cpp.http) (int $cpp.admin)) (eq (int $cpp.grpc) (int $cpp.admin)) }}
{{- fail "controlPlane.ports.http, grpc and admin must differ: each is a listener of its own" }}
{{- end }}
{{- if eq (int .Values.gateway.ports.http) (int .Values.gateway.ports.admin) }}
{{- fail "gateway.ports.http and admin must differ: each is a listener of its own" }}
{{- end }}
{{- $t := .Values.tracing }}
{{- if $t.enabled }}
{{- if not $t.endpoint }}
{{- fail "tracing.enabled needs tracing.endpoint (the collector's OTLP URL, e.g. http://otel-collector.observability:4318)" }}
{{- end }}
{{- if and (not (kindIs "invalid" $t.sampler.ratio)) (not (hasSuffix "traceidratio" $t.sampler.name)) }}
{{- fail "tracing.sampler.ratio needs tracing.sampler.name traceidratio or parentbased_traceidratio" }}
{{- end }}
{{- range $key, $component := dict "gateway" "gateway" "controlPlane" "control-plane" }}
{{- $names := list }}
{{- range include "ai-gateway.tracing.env" (dict "ctx" $ "key" $key "component" $component) | fromYamlArray }}
{{- $names = append $names .name }}
{{- end }}
{{- range (get $.Values $key).extraEnv }}
{{- if has .name $names }}
{{- fail (printf "%s.extraEnv sets %s, which tracing.* sets too: drop one" $key .name) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Pod-level pieces shared by the planes.
*/}}
{{- define "ai-gateway.topologySpread" -}}
{{- $ts := .values.topologySpread }}
{{- if $ts.enabled -}}
topologySpreadConstraints:
  - maxSkew: {{ $ts.maxSkew }}
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: {{ $ts.whenUnsatisfiable }}
    labelSelector:
      matchLabels:
        {{- include "ai-gateway.selectorLabels" (dict "ctx" .ctx "component" .component) | nindent 8 }}
    matchLabelKeys:
      - pod-template-hash
  {{- if $ts.zones }}
  - maxSkew: {{ $ts.maxSkew }}
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: {{ $ts.whenUnsatisfiable }}
    labelSelector:
      matchLabels:
        {{- include "ai-gateway.selectorLabels" (dict "ctx" .ctx "component" .component) | nindent 8 }}
    matchLabelKeys:
      - pod-template-hash
  {{- end }}
{{- end }}
{{- end }}

{{- define "ai-gateway.pdbSpec" -}}
{{- if not (kindIs "invalid" .maxUnavailable) }}
maxUnavailable: {{ .maxUnavailable }}
{{- else if not (kindIs "invalid" .minAvailable) }}
minAvailable: {{ .minAvailable }}
{{- else }}
maxUnavailable: 1
{{- end }}
{{- end }}

{{/*
OpenTelemetry environment of a plane: (dict "ctx" $ "key" "gateway"|"controlPlane" "component"
"gateway"|"control-plane"). Nothing when tracing is off. OTEL_RESOURCE_ATTRIBUTES names the pod
and node through the variables before it (Kubernetes expands `$(VAR)` of earlier variables).
*/}}
{{- define "ai-gateway.tracing.env" -}}
{{- $t := .ctx.Values.tracing }}
{{- if $t.enabled }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $t.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $t.protocol | quote }}
{{- with $t.headersSecret.name }}
- name: OTEL_EXPORTER_OTLP_HEADERS
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $t.headersSecret.key }}
{{- end }}
{{- with get $t.serviceNames .key }}
- name: OTEL_SERVICE_NAME
  value: {{ . | quote }}
{{- end }}
{{- with $t.sampler.name }}
- name: OTEL_TRACES_SAMPLER
  value: {{ . | quote }}
{{- end }}
{{- if not (kindIs "invalid" $t.sampler.ratio) }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $t.sampler.ratio | toString | quote }}
{{- end }}
- name: OTEL_RESOURCE_ATTRIBUTES_POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: OTEL_RESOURCE_ATTRIBUTES_NODE_NAME
  valueFrom:
    fieldRef:
      fieldPath: spec.nodeName
{{- $deployment := ternary (include "ai-gateway.gateway.fullname" .ctx) (include "ai-gateway.controlPlane.fullname" .ctx) (eq .component "gateway") }}
{{- $attrs := dict "k8s.namespace.name" .ctx.Release.Namespace "k8s.deployment.name" $deployment "k8s.pod.name" "$(OTEL_RESOURCE_ATTRIBUTES_POD_NAME)" "k8s.node.name" "$(OTEL_RESOURCE_ATTRIBUTES_NODE_NAME)" }}
{{- range $k, $v := $t.resourceAttributes }}
{{- $_ := set $attrs $k (replace "$" "$$" (toString $v)) }}
{{- end }}
{{- $pairs := list }}
{{- range $k := keys $attrs | sortAlpha }}
{{- $pairs = append $pairs (printf "%s=%s" $k (get $attrs $k)) }}
{{- end }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ join "," $pairs | quote }}
{{- end }}
{{- end }}
