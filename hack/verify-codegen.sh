#!/usr/bin/env bash
# Fails when pkg/generated, zz_generated.*, or the CRD under deploy/crd and the chart are not what
# hack/update-codegen.sh makes from pkg/apis. It regenerates in a scratch copy, so the
# working tree is never touched.
set -o errexit -o nounset -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "${SCRATCH}"' EXIT

cd "${ROOT}"
git ls-files --cached --others --exclude-standard -z | xargs -0 cp --parents -t "${SCRATCH}" 2>/dev/null || true
mkdir -p "${SCRATCH}/_output"
[ -d "${ROOT}/_output/tools" ] && cp -a "${ROOT}/_output/tools" "${SCRATCH}/_output/"

"${SCRATCH}/hack/update-codegen.sh" >"${SCRATCH}/codegen.log" 2>&1 || {
	cat "${SCRATCH}/codegen.log" >&2
	echo "hack/update-codegen.sh failed" >&2
	exit 1
}

status=0
for dir in pkg/generated pkg/apis deploy/crd charts/broker-operator/crds hack/api-rules; do
	if ! diff -Nru "${ROOT}/${dir}" "${SCRATCH}/${dir}"; then
		status=1
	fi
done
if [ "${status}" -ne 0 ]; then
	echo "generated code or CRD is out of date: run hack/update-codegen.sh" >&2
	exit 1
fi
echo "generated code and CRD are up to date"
