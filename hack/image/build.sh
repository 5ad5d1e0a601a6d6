#!/usr/bin/env bash
# Builds an image without a container engine and without pulling anything: a static Go binary,
# wrapped by the Go program beside this script into an OCI image layout tar under _output/image/.
#
# Usage: hack/image/build.sh [operator|pause]   (default: operator)
#   operator  the broker-operator image, named $IMAGE (default docker.io/library/broker-operator:v0.1.0,
#             the fully qualified form of deploy/'s and the chart's broker-operator:v0.1.0)
#   pause     the Pod sandbox image of the test node (test/framework), localhost/realnode/pause:1
# Env:   IMAGE, VERSION (the operator's version stamp and the default tag, default v0.1.0),
#        OUTPUT_DIR (default <repo>/_output)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "${here}/../.." && pwd)"
out="${OUTPUT_DIR:-${root}/_output}/image"
what="${1:-operator}"
# deploy/kustomization.yaml and the chart's appVersion name this release.
version="${VERSION:-v0.1.0}"
mkdir -p "${out}"

log() { printf '[image %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
started=$(date +%s)

case "${what}" in
  operator)
    # Fully qualified, because ctr stores the name as given and the kubelet asks for the
    # normalized form of broker-operator:v0.1.0.
    ref="${IMAGE:-docker.io/library/broker-operator:${version}}"
    tar="${out}/broker-operator.tar"
    src=(-C "${root}" ./cmd/broker-operator)
    ldflags="-s -w -X github.com/broker-operator/broker-operator/internal/version.Version=${version}"
    revision="$(git -C "${root}" rev-parse HEAD 2>/dev/null || echo unknown)"
    extra=(
      -path /broker-operator
      -label "org.opencontainers.image.title=broker-operator"
      -label "org.opencontainers.image.description=Kubernetes operator that scales Redpanda broker clusters safely"
      -label "org.opencontainers.image.source=https://github.com/broker-operator/broker-operator"
      -label "org.opencontainers.image.version=${version}"
      -label "org.opencontainers.image.revision=${revision}"
    )
    # The same CA bundle as the Dockerfile's distroless base, from Debian's ca-certificates.
    if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
      extra+=(-ca-certs /etc/ssl/certs/ca-certificates.crt)
    else
      log "warning: /etc/ssl/certs/ca-certificates.crt missing (apt-get install ca-certificates); the image has no CA bundle"
    fi
    ;;
  pause)
    ref="localhost/realnode/pause:1"
    tar="${out}/pause.tar"
    src=(-C "${here}" ./pause)
    ldflags="-s -w"
    extra=(-path /pause -uid 65535)
    ;;
  *) echo "unknown image '${what}'; known: operator pause" >&2; exit 2 ;;
esac

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
log "${what}: building the static binary (a cold Go cache takes a few minutes)"
CGO_ENABLED=0 go build "${src[@]:0:2}" -trimpath -ldflags "${ldflags}" -o "${work}/bin" "${src[2]}"
(cd "${here}" && go build -o "${work}/image" .)
"${work}/image" -binary "${work}/bin" -name "${ref}" -out "${tar}" "${extra[@]}"
log "${what}: ${tar} ($(du -h "${tar}" | cut -f1)) in $(( $(date +%s) - started ))s"
