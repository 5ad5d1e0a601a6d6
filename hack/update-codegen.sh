#!/usr/bin/env bash
# Regenerates everything derived from pkg/apis: deepcopy (zz_generated.*), the clientset, listers,
# informers and apply configurations (pkg/generated), and the CRD (deploy/crd).
# The generators come from hack/tools/go.mod, through the Go module proxy.
set -o errexit -o nounset -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
MODULE="github.com/broker-operator/broker-operator"
TOOLS_BIN="${ROOT}/_output/tools"
mkdir -p "${TOOLS_BIN}"

cd "${ROOT}/hack/tools"
CODEGEN_PKG="$(go mod download -json k8s.io/code-generator | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
GOBIN="${TOOLS_BIN}" go install sigs.k8s.io/controller-tools/cmd/controller-gen

cd "${ROOT}"
# kube_codegen.sh installs its generators into GOBIN; keep them out of the user's GOPATH.
export GOBIN="${TOOLS_BIN}"
# shellcheck source=/dev/null
source "${CODEGEN_PKG}/kube_codegen.sh"

kube::codegen::gen_helpers \
    --boilerplate "${ROOT}/hack/boilerplate.go.txt" \
    "${ROOT}/pkg/apis"

kube::codegen::gen_openapi \
    --output-dir "${ROOT}/pkg/generated/openapi" \
    --output-pkg "${MODULE}/pkg/generated/openapi" \
    --extra-pkgs k8s.io/api/core/v1 \
    --report-filename "${ROOT}/hack/api-rules/violation_exceptions.list" \
    --update-report \
    --boilerplate "${ROOT}/hack/boilerplate.go.txt" \
    "${ROOT}/pkg/apis"

# The apply configurations (and the fake clientset's managed-fields tracker) need the types'
# structure, which models-schema prints from the OpenAPI definitions just generated.
SCHEMA="$(mktemp)"
trap 'rm -f "${SCHEMA}"' EXIT
go run ./hack/models-schema >"${SCHEMA}"

kube::codegen::gen_client \
    --with-watch \
    --with-applyconfig \
    --applyconfig-openapi-schema "${SCHEMA}" \
    --applyconfig-externals "k8s.io/api/core/v1.ResourceRequirements:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/core/v1.Toleration:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/core/v1.Affinity:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/core/v1.TopologySpreadConstraint:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/core/v1.LocalObjectReference:k8s.io/client-go/applyconfigurations/core/v1" \
    --output-dir "${ROOT}/pkg/generated" \
    --output-pkg "${MODULE}/pkg/generated" \
    --boilerplate "${ROOT}/hack/boilerplate.go.txt" \
    "${ROOT}/pkg/apis"

rm -rf "${ROOT}/deploy/crd/bases"
"${TOOLS_BIN}/controller-gen" crd paths="./pkg/apis/..." output:crd:dir="${ROOT}/deploy/crd/bases" 2>&1
# The Helm chart installs the same CRD; hack/chartcheck fails if the two differ.
rm -f "${ROOT}"/charts/broker-operator/crds/*.yaml
cp "${ROOT}"/deploy/crd/bases/*.yaml "${ROOT}/charts/broker-operator/crds/"
