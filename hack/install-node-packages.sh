#!/usr/bin/env bash
# Installs the Debian packages the real test node (test/framework StartRealNode) needs, when any
# is missing: containerd (with its runc shim and ctr), runc, the CNI plugins, iptables, iproute2,
# and the CA bundle that make image copies. Without root it only says what is missing: the
# real-node tests then skip anyway.
set -euo pipefail

pkgs=(containerd runc containernetworking-plugins iptables iproute2 ca-certificates)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "real node: missing packages ${missing[*]}; as root: apt-get install -y ${missing[*]}" >&2
  exit 0
fi
started=$(date +%s)
echo "real node: installing ${missing[*]} with apt-get"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# --no-install-recommends: containerd would otherwise pull in nothing we use, but slower.
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "real node: packages installed in $(( $(date +%s) - started ))s"
