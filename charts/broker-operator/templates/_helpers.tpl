{{/* The app name, the value of app.kubernetes.io/name. */}}
{{- define "broker-operator.name" -}}
{{- .Chart.Name -}}
{{- end -}}

{{/* The objects' name: the release name, prefixed unless it already holds the chart name. */}}
{{- define "broker-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The pods' selector: the same as deploy/, so one release per namespace. */}}
{{- define "broker-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "broker-operator.name" . }}
{{- end -}}

{{/* Every object's labels: the selector and Helm's bookkeeping. */}}
{{- define "broker-operator.labels" -}}
{{ include "broker-operator.selectorLabels" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "broker-operator.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* The rules of the Role or ClusterRole in a file of files/; a missing or ruleless file (a
chart copied without the deploy/rbac its links point to) fails the render. */}}
{{- define "broker-operator.rules" -}}
{{- $role := .Files.Get .path | fromYaml -}}
{{- if or (not $role) (hasKey $role "Error") (not $role.rules) -}}
{{- fail (printf "%s holds no RBAC rules: it links to deploy/rbac, so install the chart from a checkout of the repository or from helm package" .path) -}}
{{- end -}}
{{- toYaml $role.rules -}}
{{- end -}}

{{/* The rules of a role file whose resources are all cluster-scoped, for the ClusterRole that
is bound cluster-wide when watchNamespaces binds the rest per namespace. */}}
{{- define "broker-operator.clusterScopedRules" -}}
{{- $rules := include "broker-operator.rules" . | fromYamlArray -}}
{{- $clusterScoped := list "nodes" "persistentvolumes" "storageclasses" -}}
{{- $out := list -}}
{{- range $rules -}}
{{- $all := true -}}
{{- range .resources -}}
{{- if not (has . $clusterScoped) -}}
{{- $all = false -}}
{{- end -}}
{{- end -}}
{{- if $all -}}
{{- $out = append $out . -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* The eviction webhook's Service; its DNS names are the serving certificate's. */}}
{{- define "broker-operator.evictionWebhook.service" -}}
{{- printf "%s-eviction-webhook" (include "broker-operator.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The kubernetes.io/tls Secret the operator serves the webhook with: cert-manager's, or the
one evictionWebhook.tls.secretName names. */}}
{{- define "broker-operator.evictionWebhook.secret" -}}
{{- if .Values.evictionWebhook.certManager.enabled -}}
{{- printf "%s-eviction-webhook-tls" (include "broker-operator.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- .Values.evictionWebhook.tls.secretName -}}
{{- end -}}
{{- end -}}

{{/* Where the operator reads tls.crt and tls.key (--eviction-webhook-cert-dir). */}}
{{- define "broker-operator.evictionWebhook.certDir" -}}
/etc/broker-operator/eviction-webhook
{{- end -}}

{{/* The PodMonitor of the brokers, and the job label of what it scrapes: the broker alerts and
dashboard select the brokers' series by it. */}}
{{- define "broker-operator.brokerMonitoring.job" -}}
{{- printf "%s-brokers" (include "broker-operator.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
