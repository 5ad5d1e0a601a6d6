#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
# kwok), the real test node's kubelet and kube-proxy, and helm (which installs the chart on that
# node) from the Go module proxy into _output/bin, and kwok's stage config into _output/kwok.
# A binary is rebuilt only when its stamp (module files, Go version, build flags) changes.
#
# Usage: hack/controlplane/build.sh [binary ...]    (default: all of them)
# Env:   OUTPUT_DIR  where bin/ and kwok/ go (default: <repo>/_output)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "${here}/../.." && pwd)"
out="${OUTPUT_DIR:-${root}/_output}"
bin="${out}/bin"
stamps="${bin}/.stamps"

kube_version="v1.37.2"
kwok_version="v0.8.0"
build_flags=(-trimpath)
base_ldflags="-s -w"
# kubectl and clients parse the server version; an unstamped build reports v0.0.0-master.
kube_ldflags="${base_ldflags} -X k8s.io/component-base/version.gitVersion=${kube_version} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 -X k8s.io/component-base/version.gitTreeState=clean"

# name|module dir|package|ldflags
targets=(
  "etcd|etcd|.|${base_ldflags}"
  "kube-apiserver|kube|k8s.io/kubernetes/cmd/kube-apiserver|${kube_ldflags}"
  "kube-controller-manager|kube|k8s.io/kubernetes/cmd/kube-controller-manager|${kube_ldflags}"
  "kube-scheduler|kube|k8s.io/kubernetes/cmd/kube-scheduler|${kube_ldflags}"
  "kwok|kwok|sigs.k8s.io/kwok/cmd/kwok|${base_ldflags}"
  "kubelet|node|k8s.io/kubernetes/cmd/kubelet|${kube_ldflags}"
  "kube-proxy|node|k8s.io/kubernetes/cmd/kube-proxy|${kube_ldflags}"
  "helm|helm|helm.sh/helm/v3/cmd/helm|${base_ldflags}"
)
# kwok's default behaviour (kwokctl's defaults), taken from the kwok module source. test/framework
# leaves pod-delete out when it starts kwok (it deletes by name with no UID precondition) and
# finishes pod deletes itself, as a kubelet does.
kwok_stages=(
  node/fast/node-initialize.yaml
  node/heartbeat-with-lease/node-heartbeat-with-lease.yaml
  pod/fast/pod-ready.yaml
  pod/fast/pod-complete.yaml
  pod/fast/pod-delete.yaml
)

log() { printf '[controlplane %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
seconds_since() { echo $(( $(date +%s) - $1 )); }

known=" $(for t in "${targets[@]}"; do printf '%s ' "${t%%|*}"; done)"
wanted=("$@")
if [[ ${#wanted[@]} -eq 0 ]]; then
  for t in "${targets[@]}"; do wanted+=("${t%%|*}"); done
fi
for w in "${wanted[@]}"; do
  [[ "${known}" == *" ${w} "* ]] || { echo "unknown binary '${w}'; known:${known}" >&2; exit 2; }
done
is_wanted() { local w; for w in "${wanted[@]}"; do [[ "$w" == "$1" ]] && return 0; done; return 1; }

command -v go >/dev/null || { echo "go is not on PATH" >&2; exit 1; }
go_version="$(go env GOVERSION)"
mkdir -p "${stamps}"

stamp_of() { # name moddir pkg ldflags
  { echo "$1|$3|$4|${build_flags[*]}|${go_version}|$(go env GOOS GOARCH)"
    cat "${here}/$2/go.mod" "${here}/$2/go.sum"
    if [[ "$3" == "." ]]; then cat "${here}/$2"/*.go; fi
  } | sha256sum | cut -d' ' -f1
}

# heartbeat prints progress while a long build runs, so a cold build is never silent.
heartbeat_pid=""
start_heartbeat() { # label
  local label="$1" started; started=$(date +%s)
  ( while sleep 30; do log "still building ${label} ($(seconds_since "${started}")s so far)"; done ) &
  heartbeat_pid=$!
}
stop_heartbeat() { [[ -n "${heartbeat_pid}" ]] && kill "${heartbeat_pid}" 2>/dev/null; wait "${heartbeat_pid}" 2>/dev/null || true; heartbeat_pid=""; }
trap stop_heartbeat EXIT

all_started=$(date +%s)
built=0
for t in "${targets[@]}"; do
  IFS='|' read -r name moddir pkg ldflags <<<"${t}"
  is_wanted "${name}" || continue
  stamp="$(stamp_of "${name}" "${moddir}" "${pkg}" "${ldflags}")"
  if [[ -x "${bin}/${name}" && -f "${stamps}/${name}" && "$(cat "${stamps}/${name}")" == "${stamp}" ]]; then
    log "${name}: up to date"
    continue
  fi
  case "${name}" in
    kube-apiserver) hint="the longest: 6-14 min cold on 2 cores, ~3 GB of memory" ;;
    kube-controller-manager) hint="2-3.5 min after kube-apiserver" ;;
    kube-scheduler) hint="under a minute after kube-controller-manager" ;;
    etcd) hint="1-2 min cold" ;;
    kwok) hint="1.5-4 min cold" ;;
    kubelet) hint="about 1 min after the other Kubernetes binaries, 7 min cold" ;;
    kube-proxy) hint="under a minute after kubelet" ;;
    helm) hint="1-3 min" ;;
  esac
  if [[ ${built} -eq 0 ]]; then
    log "building what is missing; from a cold cache this takes 20-30 min on 2 cores (modules are downloaded too)"
  fi
  log "${name}: building (${hint})"
  started=$(date +%s)
  start_heartbeat "${name}"
  (cd "${here}/${moddir}" && go build "${build_flags[@]}" -ldflags "${ldflags}" -o "${bin}/${name}.tmp" "${pkg}")
  stop_heartbeat
  mv -f "${bin}/${name}.tmp" "${bin}/${name}"
  echo "${stamp}" >"${stamps}/${name}"
  built=$((built + 1))
  log "${name}: built in $(seconds_since "${started}")s"
done

if is_wanted kwok; then
  stages="${out}/kwok/stages.yaml"
  src="$(cd "${here}/kwok" && go mod download -json "sigs.k8s.io/kwok@${kwok_version}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [[ -d "${src}/kustomize/stage" ]] || { echo "kwok ${kwok_version} source not found in the module cache" >&2; exit 1; }
  mkdir -p "${out}/kwok"
  {
    echo "# Generated by hack/controlplane/build.sh from sigs.k8s.io/kwok@${kwok_version}/kustomize/stage."
    for s in "${kwok_stages[@]}"; do
      echo "---"
      if [[ "${s}" == */pod-ready.yaml ]]; then
        # Tests delay a Pod's readiness with this annotation (a Go duration, e.g. "2s").
        awk '{ print } /^spec:$/ && !done { print "  delay:\n    durationMilliseconds: 0\n    durationFrom:\n      expressionFrom: '"'"'.metadata.annotations[\"pod-ready.stage.kwok.x-k8s.io/delay\"]'"'"'"; done = 1 }' "${src}/kustomize/stage/${s}"
      else
        cat "${src}/kustomize/stage/${s}"
      fi
    done
  } >"${stages}.tmp"
  mv -f "${stages}.tmp" "${stages}"
  log "kwok stages: ${stages}"
fi

log "done: ${built} built, in $(seconds_since "${all_started}")s; binaries in ${bin}"
