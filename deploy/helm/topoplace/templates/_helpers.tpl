{{/* Names: every object is <release>-<component>, labelled with the release. */}}
{{- define "topoplace.name" -}}
{{- printf "%s-%s" .root.Release.Name .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "topoplace.labels" -}}
app.kubernetes.io/name: topoplace
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{- define "topoplace.selector" -}}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "topoplace.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag }}
{{- end -}}

{{/* The admin token Secret: the one named, else the chart's own. */}}
{{- define "topoplace.tokenSecret" -}}
{{- .Values.daemon.tokenSecret | default (include "topoplace.name" (dict "root" . "component" "token")) -}}
{{- end -}}

{{/* topoplaced's address inside the cluster. */}}
{{- define "topoplace.daemonAddress" -}}
{{ include "topoplace.name" (dict "root" . "component" "daemon") }}.{{ .Release.Namespace }}.svc:7469
{{- end -}}
