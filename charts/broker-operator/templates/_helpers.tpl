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
