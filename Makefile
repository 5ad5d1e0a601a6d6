# The two commands a new user needs are `make run` and `make test`; the rest are for developers.
SHELL := /usr/bin/env bash
GO ?= go

.PHONY: all
all: build

.PHONY: build
build: ## Build the operator binary into _output/bin.
	$(GO) build -o _output/bin/broker-operator ./cmd/broker-operator

.PHONY: image
image: ## The operator's OCI image tar, built without a container engine or a pull: _output/image/broker-operator.tar.
	hack/image/build.sh operator

.PHONY: run
run: ## A local control plane on 127.0.0.1 with the operator and simulated brokers; Ctrl-C stops it.
	@echo "[make run] compiling hack/localrun (a few minutes the first time, while Go fills its build cache)" >&2
	$(GO) run ./hack/localrun

.PHONY: test
test: unit charts e2e ## Every test: unit tests, the Helm chart's, then the tests against a real control plane.

.PHONY: unit
unit: ## Unit tests, with the race detector; then the fresh-facts property test at its full 2,000 schedules, which -race would make too slow.
	$(GO) test -race ./...
	$(GO) test -run '^TestIrreversibleStepsHoldTheirFacts$$' ./pkg/controller/

.PHONY: charts
charts: ## The Helm chart against deploy/: same objects, RBAC, Deployment, CRD and dashboard; helm lint; the alerts parsed as PromQL.
	cd hack/chartcheck && $(GO) test -count=1 ./...

# The real-node tests (test/node) run in a network namespace of their own, with no uplink.
NODE_E2E := ./test/node

.PHONY: e2e
e2e: controlplane ## Tests against a real etcd and kube-apiserver on 127.0.0.1, the quick race experiment, then e2e-node.
	$(GO) test -race -tags e2e -timeout 30m $$($(GO) list -tags e2e ./test/... ./examples/... | grep -v '/test/node$$')
	$(MAKE) e2e-node

.PHONY: e2e-node
e2e-node: controlplane image ## The operator's image as two real Pods on a real node (kubelet, containerd), in a network namespace of its own.
	hack/install-node-packages.sh
	hack/image/build.sh pause
	$(GO) test -race -tags e2e -timeout 20m -exec 'unshare --net --' $(NODE_E2E)

.PHONY: controlplane
controlplane: ## Build etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, kubelet and kube-proxy (first time: 15-30 min).
	hack/controlplane/build.sh

.PHONY: generate
generate: ## Regenerate clients, deepcopy and the CRD from pkg/apis.
	hack/update-codegen.sh

.PHONY: verify
verify: ## Generated code, go.mod tidiness, formatting, vet and staticcheck; bench/peers, a module of its own, still builds; the docs' links, paths, flags, reasons and fields exist and every flag, reason and field is documented.
	hack/verify-codegen.sh
	$(GO) mod tidy -diff
	cd hack/chartcheck && $(GO) mod tidy -diff
	cd bench/peers && $(GO) mod tidy -diff && $(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(MAKE) docs
	$(MAKE) lint

.PHONY: docs
docs: ## The Markdown files name only relative links, anchors, repository paths, operator flags, condition and event reasons and CRD fields that exist, and name every flag, reason and field (hack/docscheck).
	GO=$(GO) $(GO) run ./hack/docscheck

# staticcheck, pinned; its findings in generated code (deprecated APIs the generators still use)
# are not ours to fix, and are left out.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: lint
lint: ## staticcheck over every package, e2e tests included (generated code left out).
	@out=$$($(GO) run $(STATICCHECK) -tags e2e ./... 2>&1 | grep -v -e '^pkg/generated/' -e '/zz_generated\.' -e '^exit status ' -e '^go: downloading '); \
	if [ -n "$$out" ]; then echo "$$out"; exit 1; fi

.PHONY: bench
bench: ## Write-back store benchmarks: reads against the plain informer and MutationCache, and write cost by pending-set size, printed as ratios.
	$(GO) test ./pkg/writeback/ -run '^$$' -v -writeback.report

.PHONY: bench-peers
bench-peers: controlplane ## Read-your-writes strategies side by side on a real kube-apiserver; PEERS_FLAGS='-workload decisions' for whole controllers (bench/peers; docs/peers.md).
	cd bench/peers && $(GO) run . $(PEERS_FLAGS)

.PHONY: help
help:
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-13s %s\n", $$1, $$2}'
