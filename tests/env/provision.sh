#!/usr/bin/env bash
# Finds or makes the binaries and CRDs of toolkit's real test environment.
#
#   tests/env/provision.sh            provision (idempotent; a second run is quick)
#
# - kube-apiserver, etcd and kubectl: taken from $KUBEBUILDER_ASSETS when it holds
#   kube-apiserver and etcd; otherwise built from the Kubernetes and etcd Go modules at the
#   pinned versions below and kept in the cache. kube-controller-manager (service accounts,
#   namespaces, Deployments -> Pods) is not part of the kubebuilder assets: it is taken from
#   there when present and otherwise built into the cache.
# - docker-registry (the distribution registry), gpg, skopeo, htpasswd, openssl: installed
#   from Debian packages when missing.
# - CRDs of Tekton Pipelines and Triggers, of OpenShift Route and SecurityContextConstraints and
#   of cert-manager (Issuer, Certificate, ...) and the wg-policy PolicyReports (as Kyverno ships
#   them), read from those projects' published Go modules at
#   pinned versions (no Go build).
# - helm: built from the Helm Go module at the pinned version with the ldflags of Helm's own
#   release build (so `helm template` and `helm lint` assume the Kubernetes version the release
#   does, not v1.20); kept once for every Kubernetes version.
# - gitea: built from Gitea's Go module (cgo, sqlite) with its locales, templates and schemas
#   embedded (the bindata tag), so the binary is all it needs.
# - Tekton Triggers' eventlistenersink, interceptors, cel-eval and binding-eval: built from the
#   Triggers Go module at the version of its CRDs.
# - cosign: built from its Go module (github.com/sigstore/cosign/v3/cmd/cosign).
# - tekton-pipeline: Tekton Pipelines' own validation, PipelineRun-to-TaskRun resolution and pod
#   builder (tests/env/tekton-pipeline/main.go) against github.com/tektoncd/pipeline at the
#   version of its CRDs (rebuilt when that source changes).
# - referrers-registry: a registry WITH the OCI 1.1 referrers API (the distribution registry has
#   none): go-containerregistry's pkg/registry with WithReferrersSupport(true), built from the
#   Go source in tests/env/referrers-registry/ (rebuilt when that source changes).
# - keyprotect-sdk: tests/env/keyprotect-sdk/main.go, a small command line around IBM's Go SDK for
#   Key Protect (github.com/IBM/keyprotect-go-client at KEYPROTECT_SDK_VERSION), so tests check
#   the Key Protect stand-in and toolkit's vault client against a client nobody here wrote
#   (rebuilt when that source changes).
# - promtool (checks the chart's alerting rules): taken out of Debian's prometheus package (its
#   .deb only, into .../promtool-deb/bin/; installing the package would start a Prometheus server),
#   unless one is on the PATH.
# Gitea, Triggers, cosign, the referrers registry, keyprotect-sdk and tekton-pipeline are built in
# the background while the Kubernetes binaries build (they share no packages worth waiting for),
# all under `nice`; their logs are printed if they fail.
#
# One run at a time: a run holds an exclusive lock on <cache>/.provision.lock, and a second run
# waits for it, then finds everything built.
#
# Cache: ${TOOLKIT_TEST_ENV_CACHE:-~/.cache/toolkit-test-env}/<version>/ (helm, gitea, Triggers,
# cosign, the referrers registry, keyprotect-sdk and tekton-pipeline: .../helm-<version>/,
# .../gitea-<version>/, .../tekton-triggers-<version>/, .../cosign-<version>/,
# .../referrers-registry-<ggcr version>/, .../keyprotect-sdk-<SDK version>/,
# .../tekton-pipeline-<version>/)
# The last line printed is the directory that holds kube-apiserver and etcd.
set -euo pipefail

K8S_VERSION=v1.34.4
ETCD_VERSION=v3.6.16
TEKTON_PIPELINE_VERSION=v1.6.0
TEKTON_TRIGGERS_VERSION=v0.34.0
OPENSHIFT_API_VERSION=v0.0.0-20251015095338-264e80a2b6e7
CERT_MANAGER_VERSION=v1.19.2
KYVERNO_VERSION=v1.19.1
HELM_VERSION=v3.22.0
GITEA_VERSION=v1.26.0
GITEA_TAGS="bindata sqlite sqlite_unlock_notify"
COSIGN_VERSION=v3.1.3
GGCR_VERSION=v0.22.1
KEYPROTECT_SDK_VERSION=v0.15.1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${TOOLKIT_TEST_ENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolkit-test-env}
version="k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}"
cache="$root/$version"
bin="$cache/bin"
crds="$cache/crds"
mkdir -p "$bin" "$crds"

say() { printf 'provision: %s\n' "$*" >&2; }

# One run at a time: a second run would delete the first one's build directories.
exec 9>"$root/.provision.lock"
if ! flock -n 9; then
  say "another provision.sh is running; waiting for it to finish"
  flock 9
fi
# Builds yield to the tests and builds of the people sharing the machine (children inherit it).
[ "$(nice)" -ge 10 ] || renice -n 10 -p $$ >/dev/null

# Debian packages --------------------------------------------------------------------------
need_pkgs=()
command -v docker-registry >/dev/null || need_pkgs+=(docker-registry)
command -v gpg >/dev/null || need_pkgs+=(gnupg)
command -v skopeo >/dev/null || need_pkgs+=(skopeo)
command -v htpasswd >/dev/null || need_pkgs+=(apache2-utils)
command -v openssl >/dev/null || need_pkgs+=(openssl)
command -v git >/dev/null || need_pkgs+=(git)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  say "installing Debian packages: ${need_pkgs[*]}"
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq >&2
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >&2
fi

# promtool (checks the chart's alerting rules), from Debian's prometheus package: only the binary
# is taken out of the .deb (installing the package would start a Prometheus server as a service).
promtool_bin=$(command -v promtool || true)
if [ -z "$promtool_bin" ]; then
  promtool_bin="$root/promtool-deb/bin/promtool"
  if [ ! -x "$promtool_bin" ]; then
    say "extracting promtool from Debian's prometheus package"
    promtool_tmp="$root/promtool-deb/tmp"
    rm -rf "$promtool_tmp" && mkdir -p "$promtool_tmp"
    sudo_cmd=()
    [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
    (cd "$promtool_tmp" && { apt-get download prometheus >&2 2>/dev/null ||
      { "${sudo_cmd[@]}" apt-get update -qq >&2 && apt-get download prometheus >&2; }; })
    dpkg-deb -x "$promtool_tmp"/prometheus_*.deb "$promtool_tmp/root"
    mkdir -p "$(dirname "$promtool_bin")"
    mv "$promtool_tmp/root/usr/bin/promtool" "$promtool_bin"
    rm -rf "$promtool_tmp"
  fi
fi

# Go toolchain settings: modules and build cache live in the cache, shared across versions --
export GOMODCACHE="$root/go/mod" GOCACHE="$root/go/build" GOFLAGS=-mod=mod GOTOOLCHAIN=local
export CGO_ENABLED=0
if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then export PATH="/usr/local/go/bin:$PATH"; fi
module_dir() { go mod download -json "$1" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'; }
need_go() { command -v go >/dev/null || { say "Go is needed to build $1"; exit 1; }; }

# Gitea and Tekton Triggers, in the background -------------------------------------------------
# Each builds in a writable copy of its module's directory: their go.mod files have replace
# directives (Gitea) or a version list the proxy will not serve (Triggers), so `go install
# MODULE@VERSION` is refused.
gitea_dir="$root/gitea-${GITEA_VERSION}"
gitea_bin="$gitea_dir/bin/gitea"
triggers_dir="$root/tekton-triggers-${TEKTON_TRIGGERS_VERSION}"
triggers_bin="$triggers_dir/bin"
triggers_tools=(eventlistenersink interceptors cel-eval binding-eval)

build_gitea() {
  need_go gitea
  local src="$gitea_dir/src" dir
  say "building gitea ${GITEA_VERSION} from the Gitea Go module (first run: about 10 minutes)"
  dir=$(module_dir "code.gitea.io/gitea@${GITEA_VERSION}")
  rm -rf "$src"
  mkdir -p "$gitea_dir/bin"
  cp -r "$dir" "$src"
  chmod -R u+w "$src"
  # The bindata tag embeds options/, templates/, public/ and the migration schemas, once they
  # are packed by Gitea's own generator (as its Makefile does).
  (cd "$src" && go generate -tags bindata ./modules/options ./modules/templates ./modules/public \
    ./modules/migration &&
    CGO_ENABLED=1 go build -trimpath -tags "$GITEA_TAGS" \
      -ldflags "-s -w -X 'main.Version=${GITEA_VERSION#v}' -X 'main.Tags=$GITEA_TAGS'" \
      -o "$gitea_bin.tmp" .)
  mv "$gitea_bin.tmp" "$gitea_bin"
  rm -rf "$src"
}

build_triggers() {
  need_go "Tekton Triggers"
  local src="$triggers_dir/src" dir name
  say "building Tekton Triggers ${TEKTON_TRIGGERS_VERSION} (${triggers_tools[*]}) from its Go module"
  dir=$(module_dir "github.com/tektoncd/triggers@${TEKTON_TRIGGERS_VERSION}")
  rm -rf "$src" "$triggers_bin.tmp"
  mkdir -p "$triggers_bin.tmp"
  cp -r "$dir" "$src"
  chmod -R u+w "$src"
  (cd "$src" && go build -trimpath -ldflags "-s -w" -o "$triggers_bin.tmp/" \
    "${triggers_tools[@]/#/./cmd/}")
  mkdir -p "$triggers_bin"
  for name in "${triggers_tools[@]}"; do mv "$triggers_bin.tmp/$name" "$triggers_bin/$name"; done
  rm -rf "$triggers_bin.tmp" "$src"
}

# cosign, from its Go module (no replace directives: `go install MODULE@VERSION` works), with the
# version ldflags of cosign's Makefile so `cosign version` names it.
cosign_dir="$root/cosign-${COSIGN_VERSION}"
cosign_bin="$cosign_dir/bin/cosign"
build_cosign() {
  need_go cosign
  local tmp="$cosign_dir/bin.tmp"
  say "building cosign ${COSIGN_VERSION} from its Go module (first run: about 8 minutes)"
  rm -rf "$tmp" && mkdir -p "$tmp"
  GOBIN="$tmp" go install -trimpath \
    -ldflags "-s -w -X sigs.k8s.io/release-utils/version.gitVersion=${COSIGN_VERSION} -X sigs.k8s.io/release-utils/version.gitTreeState=clean" \
    "github.com/sigstore/cosign/v3/cmd/cosign@${COSIGN_VERSION}"
  mkdir -p "$cosign_dir/bin" && mv "$tmp/cosign" "$cosign_bin" && rm -rf "$tmp"
}

# The referrers registry: tests/env/referrers-registry/main.go against go-containerregistry at
# GGCR_VERSION, in a module made for it (the source's checksum is kept beside the binary).
referrers_dir="$root/referrers-registry-${GGCR_VERSION}"
referrers_bin="$referrers_dir/bin/referrers-registry"
referrers_src="$here/referrers-registry/main.go"
referrers_sum=$(sha256sum "$referrers_src" | cut -d' ' -f1)
build_referrers_registry() {
  need_go "the referrers registry"
  local src="$referrers_dir/src"
  say "building the referrers registry (go-containerregistry ${GGCR_VERSION})"
  rm -rf "$src" && mkdir -p "$src" "$referrers_dir/bin"
  cp "$referrers_src" "$src/main.go"
  (cd "$src" && go mod init toolkit-test-bins/referrers-registry >/dev/null 2>&1 &&
    go get "github.com/google/go-containerregistry@${GGCR_VERSION}" &&
    go build -trimpath -ldflags "-s -w" -o "$referrers_bin.tmp" .)
  mv "$referrers_bin.tmp" "$referrers_bin"
  echo "$referrers_sum" >"$referrers_bin.sum"
  rm -rf "$src"
}

# go-containerregistry's crane at GGCR_VERSION, from its Go module (its own go.mod, no replace
# directives): the tests assemble multi-platform images with it (`crane index append`).
crane_dir="$root/crane-${GGCR_VERSION}"
crane_bin="$crane_dir/bin/crane"
build_crane() {
  need_go crane
  local tmp="$crane_dir/bin.tmp"
  say "building crane (go-containerregistry ${GGCR_VERSION})"
  rm -rf "$tmp" && mkdir -p "$tmp"
  GOBIN="$tmp" go install -trimpath -ldflags "-s -w" \
    "github.com/google/go-containerregistry/cmd/crane@${GGCR_VERSION}"
  mkdir -p "$crane_dir/bin" && mv "$tmp/crane" "$crane_bin" && rm -rf "$tmp"
}

# Tekton Pipelines' own code for the tests: tests/env/tekton-pipeline/main.go in a module made for
# it, against github.com/tektoncd/pipeline at the version of the CRDs below, with the replace
# directives of that module's go.mod (a dependency's replaces do not apply to the module using it).
pipeline_dir="$root/tekton-pipeline-${TEKTON_PIPELINE_VERSION}"
pipeline_bin="$pipeline_dir/bin/tekton-pipeline"
pipeline_src="$here/tekton-pipeline/main.go"
pipeline_sum=$(sha256sum "$pipeline_src" | cut -d' ' -f1)
build_tekton_pipeline() {
  need_go "Tekton Pipelines' validation"
  local src="$pipeline_dir/src" gomod replace
  say "building tekton-pipeline (Tekton Pipelines ${TEKTON_PIPELINE_VERSION}) (first run: about 10 minutes)"
  rm -rf "$src" && mkdir -p "$src" "$pipeline_dir/bin"
  cp "$pipeline_src" "$src/main.go"
  gomod=$(go mod download -json "github.com/tektoncd/pipeline@${TEKTON_PIPELINE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  (cd "$src" && go mod init toolkit-test-bins/tekton-pipeline >/dev/null 2>&1 &&
    sed -n '/^replace (/,/^)/{/=>/p};/^replace [^(]/{s/^replace //p}' "$gomod" |
    while read -r replace; do
      go mod edit -replace="$(echo "$replace" | sed 's# *=> *#=#; s# \(v[^ ]*\)=#@\1=#; s#=\([^ ]*\) \(v[^ ]*\)#=\1@\2#; s# *//.*##')"
    done &&
    go get "github.com/tektoncd/pipeline@${TEKTON_PIPELINE_VERSION}" &&
    go mod tidy &&
    go build -trimpath -ldflags "-s -w" -o "$pipeline_bin.tmp" .)
  mv "$pipeline_bin.tmp" "$pipeline_bin"
  echo "$pipeline_sum" >"$pipeline_bin.sum"
  rm -rf "$src"
}

# keyprotect-sdk: tests/env/keyprotect-sdk/main.go against IBM's Go SDK for Key Protect, in a
# module made for it (the source's checksum is kept beside the binary). The version is explicit:
# the module proxy refuses @latest.
kpsdk_dir="$root/keyprotect-sdk-${KEYPROTECT_SDK_VERSION}"
kpsdk_bin="$kpsdk_dir/bin/keyprotect-sdk"
kpsdk_src="$here/keyprotect-sdk/main.go"
kpsdk_sum=$(sha256sum "$kpsdk_src" | cut -d' ' -f1)
build_keyprotect_sdk() {
  need_go keyprotect-sdk
  local src="$kpsdk_dir/src"
  say "building keyprotect-sdk (github.com/IBM/keyprotect-go-client ${KEYPROTECT_SDK_VERSION})"
  rm -rf "$src" && mkdir -p "$src" "$kpsdk_dir/bin"
  cp "$kpsdk_src" "$src/main.go"
  (cd "$src" && go mod init toolkit-test-bins/keyprotect-sdk >/dev/null 2>&1 &&
    go get "github.com/IBM/keyprotect-go-client@${KEYPROTECT_SDK_VERSION}" &&
    go build -trimpath -ldflags "-s -w" -o "$kpsdk_bin.tmp" .)
  mv "$kpsdk_bin.tmp" "$kpsdk_bin"
  echo "$kpsdk_sum" >"$kpsdk_bin.sum"
  rm -rf "$src"
}

background=()
start_build() { # name function: runs it in the background, output in <root>/logs/<name>.log
  mkdir -p "$root/logs"
  say "$1: building in the background (log: $root/logs/$1.log)"
  ("$2" >"$root/logs/$1.log" 2>&1) &
  background+=("$1:$!")
}
[ -x "$gitea_bin" ] || start_build gitea build_gitea
for b in "${triggers_tools[@]}"; do
  [ -x "$triggers_bin/$b" ] || { start_build tekton-triggers build_triggers; break; }
done
[ -x "$cosign_bin" ] || start_build cosign build_cosign
[ -x "$crane_bin" ] || start_build crane build_crane
if [ ! -x "$pipeline_bin" ] || [ "$(cat "$pipeline_bin.sum" 2>/dev/null)" != "$pipeline_sum" ]; then
  start_build tekton-pipeline build_tekton_pipeline
fi
if [ ! -x "$referrers_bin" ] || [ "$(cat "$referrers_bin.sum" 2>/dev/null)" != "$referrers_sum" ]; then
  start_build referrers-registry build_referrers_registry
fi
if [ ! -x "$kpsdk_bin" ] || [ "$(cat "$kpsdk_bin.sum" 2>/dev/null)" != "$kpsdk_sum" ]; then
  start_build keyprotect-sdk build_keyprotect_sdk
fi
wait_builds() {
  local job failed=0
  for job in ${background[@]+"${background[@]}"}; do
    if wait "${job#*:}"; then
      say "${job%%:*}: built"
    else
      say "${job%%:*}: build failed; its log follows"
      cat "$root/logs/${job%%:*}.log" >&2
      failed=1
    fi
  done
  background=()
  return $failed
}
# On an early exit (a failed build, Ctrl-C), the background builds stop with the script: they
# ignore SIGINT, and must not go on writing while the next run, once it has the lock, starts over.
kill_tree() { # pid: the process, then its descendants
  local children child
  children=$(pgrep -P "$1" || true)
  kill "$1" 2>/dev/null || true
  for child in $children; do kill_tree "$child"; done
}
trap 'for job in ${background[@]+"${background[@]}"}; do kill_tree "${job#*:}"; done' EXIT

# kube-apiserver, kubectl and etcd -----------------------------------------------------------
assets=""
if [ -n "${KUBEBUILDER_ASSETS:-}" ] && [ -x "$KUBEBUILDER_ASSETS/kube-apiserver" ] && [ -x "$KUBEBUILDER_ASSETS/etcd" ]; then
  assets="$KUBEBUILDER_ASSETS"
  say "using KUBEBUILDER_ASSETS=$assets"
elif [ -n "${KUBEBUILDER_ASSETS:-}" ]; then
  say "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS lacks kube-apiserver or etcd; building them instead"
fi

build_kube() { # binaries...
  local mod="$cache/src/kube"
  command -v go >/dev/null || { say "Go is needed to build kube-apiserver (or set KUBEBUILDER_ASSETS)"; exit 1; }
  say "building $* ${K8S_VERSION} from the Kubernetes Go modules (first run: several minutes)"
  rm -rf "$mod" && mkdir -p "$mod" && cd "$mod"
  go mod init toolkit-test-bins/kube >/dev/null 2>&1
  local gomod staging minor patch
  gomod=$(go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  minor=$(echo "$K8S_VERSION" | cut -d. -f2); patch=$(echo "$K8S_VERSION" | cut -d. -f3)
  for staging in $(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod"); do
    go mod edit -replace="${staging}=${staging}@v0.${minor}.${patch}"
  done
  go get "k8s.io/kubernetes/cmd/kube-apiserver@${K8S_VERSION}" >&2
  local ld="-s -w -X k8s.io/component-base/version.gitVersion=${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean"
  local name
  for name in "$@"; do
    go build -trimpath -ldflags "$ld" -o "$bin/$name.tmp" "k8s.io/kubernetes/cmd/$name" >&2
    mv "$bin/$name.tmp" "$bin/$name"
  done
}

build_etcd() {
  local mod="$cache/src/etcd"
  command -v go >/dev/null || { say "Go is needed to build etcd (or set KUBEBUILDER_ASSETS)"; exit 1; }
  say "building etcd ${ETCD_VERSION} from the etcd Go modules"
  rm -rf "$mod" && mkdir -p "$mod" && cd "$mod"
  go mod init toolkit-test-bins/etcd >/dev/null 2>&1
  local m
  for m in api client/pkg client/v3 pkg server; do
    go mod edit -require="go.etcd.io/etcd/${m%/v3}/v3@${ETCD_VERSION}"
  done
  go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}" >&2
  go build -trimpath -ldflags "-s -w" -o "$bin/etcd.tmp" go.etcd.io/etcd/server/v3 >&2
  mv "$bin/etcd.tmp" "$bin/etcd"
}

missing=()
if [ -z "$assets" ]; then
  for b in kube-apiserver kubectl kube-controller-manager; do [ -x "$bin/$b" ] || missing+=("$b"); done
  [ ${#missing[@]} -eq 0 ] || build_kube "${missing[@]}"
  [ -x "$bin/etcd" ] || build_etcd
  assets="$bin"
else
  # kube-controller-manager (and sometimes kubectl) is not among the kubebuilder assets:
  # keep one in the cache.
  for b in kubectl kube-controller-manager; do
    [ -x "$assets/$b" ] || [ -x "$bin/$b" ] || missing+=("$b")
  done
  [ ${#missing[@]} -eq 0 ] || build_kube "${missing[@]}"
  for b in kubectl kube-controller-manager; do
    if [ -x "$assets/$b" ] && [ ! -e "$bin/$b" ]; then ln -s "$assets/$b" "$bin/$b"; fi
  done
  for b in kube-apiserver etcd; do ln -sfn "$assets/$b" "$bin/$b"; done
  assets="$bin"
fi

# CRDs from the projects' published Go modules -------------------------------------------------
copy_crds() { # name module@version pattern...
  local name=$1 module=$2 dest="$crds/$1" dir
  shift 2
  # The patterns are kept beside the files: a changed list is read again.
  if [ -d "$dest" ] && [ "$(cat "$dest/.patterns" 2>/dev/null)" = "$module $*" ]; then return 0; fi
  command -v go >/dev/null || { say "Go is needed to fetch the $name CRDs"; exit 1; }
  say "reading $name CRDs from $module"
  dir=$(module_dir "$module")
  rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
  local pattern
  for pattern in "$@"; do
    # shellcheck disable=SC2086
    cp $dir/$pattern "$dest.tmp/"
  done
  chmod -R u+w "$dest.tmp"
  echo "$module $*" >"$dest.tmp/.patterns"
  rm -rf "$dest" && mv "$dest.tmp" "$dest"
}
copy_crds tekton-pipelines "github.com/tektoncd/pipeline@${TEKTON_PIPELINE_VERSION}" 'config/300-crds/300-*.yaml'
copy_crds tekton-triggers "github.com/tektoncd/triggers@${TEKTON_TRIGGERS_VERSION}" 'config/300-*.yaml'
copy_crds openshift "github.com/openshift/api@${OPENSHIFT_API_VERSION}" \
  'route/v1/zz_generated.crd-manifests/routes.crd.yaml' \
  'security/v1/zz_generated.crd-manifests/0000_03_config-operator_01_securitycontextconstraints.crd.yaml'
copy_crds cert-manager "github.com/cert-manager/cert-manager@${CERT_MANAGER_VERSION}" \
  'deploy/crds/cert-manager.io_*.yaml'
# The wg-policy PolicyReport CRDs as Kyverno ships them (the report controller writes PolicyReports;
# deploy/crds/ pins the same files for installation, tools/gen_crds_test.ts compares them).
copy_crds policyreport "github.com/kyverno/kyverno@${KYVERNO_VERSION}" 'config/crds/policyreport/*.yaml'

# helm, from its Go module ----------------------------------------------------------------------
helm_bin="$root/helm-${HELM_VERSION}/bin/helm"
build_helm() {
  command -v go >/dev/null || { say "Go is needed to build helm"; exit 1; }
  say "building helm ${HELM_VERSION} from the Helm Go module"
  cd "$root"
  local gomod client_go major minor ld pkg tmp="$root/helm-${HELM_VERSION}/bin.tmp"
  gomod=$(go mod download -json "helm.sh/helm/v3@${HELM_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  # As Helm's Makefile: the default Kubernetes version follows the client-go it is built with.
  client_go=$(sed -n 's#^[[:space:]]*k8s.io/client-go v\([0-9.]*\).*#\1#p' "$gomod")
  major=$(($(echo "$client_go" | cut -d. -f1) + 1))
  minor=$(echo "$client_go" | cut -d. -f2)
  ld="-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}"
  for pkg in pkg/chartutil pkg/lint/rules; do
    ld="$ld -X helm.sh/helm/v3/$pkg.k8sVersionMajor=$major -X helm.sh/helm/v3/$pkg.k8sVersionMinor=$minor"
  done
  rm -rf "$tmp" && mkdir -p "$tmp"
  GOBIN="$tmp" go install -ldflags "$ld" "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}" >&2
  mkdir -p "$(dirname "$helm_bin")" && mv "$tmp/helm" "$helm_bin" && rm -rf "$tmp"
}
[ -x "$helm_bin" ] || build_helm

wait_builds

{
  echo "K8S_VERSION=$K8S_VERSION"
  echo "ETCD_VERSION=$ETCD_VERSION"
  echo "TEKTON_PIPELINE_VERSION=$TEKTON_PIPELINE_VERSION"
  echo "TEKTON_TRIGGERS_VERSION=$TEKTON_TRIGGERS_VERSION"
  echo "OPENSHIFT_API_VERSION=$OPENSHIFT_API_VERSION"
  echo "CERT_MANAGER_VERSION=$CERT_MANAGER_VERSION"
  echo "KYVERNO_VERSION=$KYVERNO_VERSION"
  echo "HELM_VERSION=$HELM_VERSION"
  echo "ASSETS=$assets"
  echo "CRDS=$crds"
  echo "HELM=$helm_bin"
  echo "GITEA_VERSION=$GITEA_VERSION"
  echo "GITEA=$gitea_bin"
  echo "TEKTON_TRIGGERS_BIN=$triggers_bin"
  echo "COSIGN_VERSION=$COSIGN_VERSION"
  echo "COSIGN=$cosign_bin"
  echo "GGCR_VERSION=$GGCR_VERSION"
  echo "REFERRERS_REGISTRY=$referrers_bin"
  echo "CRANE=$crane_bin"
  echo "TEKTON_PIPELINE=$pipeline_bin"
  echo "KEYPROTECT_SDK_VERSION=$KEYPROTECT_SDK_VERSION"
  echo "KEYPROTECT_SDK=$kpsdk_bin"
  echo "PROMTOOL=$promtool_bin"
} >"$cache/env.tmp"
# Keys this run does not write (tools another checkout of this script builds) are kept, so that
# runs from different branches of the repository do not take each other's tools away.
if [ -f "$cache/env" ]; then
  while IFS= read -r line; do
    [[ $line == *=* ]] || continue
    grep -q "^${line%%=*}=" "$cache/env.tmp" || echo "$line" >>"$cache/env.tmp"
  done <"$cache/env"
fi
mv "$cache/env.tmp" "$cache/env"
ln -sfn "$cache" "$root/current"
echo "$assets"
