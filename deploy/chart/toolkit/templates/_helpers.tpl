{{/*
Names and labels shared by the templates. The object names are toolkit's fixed names (not
prefixed with the release name) so that `toolkit image-security status` and `disable` find a
Helm install as they find one made by `enable`; one release per cluster.
*/}}

{{/* The name of the ServiceAccount, ClusterRole(Binding), Deployment, PDB, Service. */}}
{{- define "toolkit.webhookName" -}}
toolkit-webhook
{{- end }}

{{/* The Secret holding the serving certificate. */}}
{{- define "toolkit.tlsSecretName" -}}
{{- if eq .Values.tls.mode "provided" -}}
{{ .Values.tls.provided.secretName }}
{{- else -}}
toolkit-webhook-tls
{{- end }}
{{- end }}

{{/* The DNS name the API server calls the Service by. */}}
{{- define "toolkit.serviceDnsName" -}}
toolkit-webhook.{{ .Release.Namespace }}.svc
{{- end }}

{{/* The helm.sh/chart label. */}}
{{- define "toolkit.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The labels of every object: enable's (part-of, managed-by) and Helm's standard ones. */}}
{{- define "toolkit.labels" -}}
app.kubernetes.io/part-of: toolkit
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ include "toolkit.chart" . }}
{{- end }}

{{/*
The labels selecting the webhook's pods: exactly enable's selectorLabels(), so that a Helm
install and an enable install are the same workload (a Deployment's selector cannot change).
*/}}
{{- define "toolkit.selectorLabels" -}}
app.kubernetes.io/name: toolkit-webhook
app.kubernetes.io/component: admission-webhook
{{- end }}

{{/* The webhook image. */}}
{{- define "toolkit.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}
{{- end }}

{{/* The exemption label as a list [key, value], or an empty list for none. */}}
{{- define "toolkit.exemptLabel" -}}
{{- with .Values.webhook.exemptNamespaceLabel -}}
{{- $parts := splitn "=" 2 . -}}
{{- list $parts._0 $parts._1 | toJson -}}
{{- else -}}
[]
{{- end }}
{{- end }}

{{/*
The registries.d files (lib/install/registries_d.ts registriesDFiles): scopes and URLs as JSON
strings, two spaces per level. lookaside.yaml is empty without the `lookaside` value.
*/}}
{{- define "toolkit.lookasideYaml" -}}
{{- if .Values.lookaside -}}
docker:
{{- range .Values.lookaside }}
  {{ .scope | toJson }}:
    lookaside: {{ .url | toJson }}
{{- end }}
{{- end }}
{{- end }}

{{- define "toolkit.releaseRegistriesYaml" -}}
docker:
  "ghcr.io/toolkit-dev/toolkit-webhook":
    lookaside: "https://toolkit-dev.github.io/toolkit/signatures"
  "ghcr.io/toolkit-dev/toolkit":
    lookaside: "https://toolkit-dev.github.io/toolkit/signatures"
{{- end }}

{{/* The checksum enable puts on the pod template: sha256 of the files joined in name order. */}}
{{- define "toolkit.registriesDChecksum" -}}
{{- $lookaside := include "toolkit.lookasideYaml" . -}}
{{- printf "%s%s%s" (ternary (printf "%s\n" $lookaside) "" (ne $lookaside "")) (include "toolkit.releaseRegistriesYaml" .) "\n" | sha256sum -}}
{{- end }}
