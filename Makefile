# The two commands a new user needs are `make run` and `make test`; the rest are for developers.
SHELL := /usr/bin/env bash
GO ?= go

.PHONY: all
all: build

.PHONY: build
build: ## Build the operator binary into _output/bin.
	$(GO) build -o _output/bin/broker-operator ./cmd/broker-operator

.PHONY: test
test: unit ## Every test: unit tests, then the real control plane tests.

.PHONY: unit
unit: ## Unit tests, with the race detector.
	$(GO) test -race ./...

.PHONY: generate
generate: ## Regenerate clients, deepcopy and the CRD from pkg/apis.
	hack/update-codegen.sh

.PHONY: verify
verify: ## Generated code, formatting and vet.
	hack/verify-codegen.sh
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

.PHONY: bench
bench: ## Write-back store benchmarks, printed as ratios.
	$(GO) test -run '^$$' -bench . -benchmem ./pkg/writeback/

.PHONY: help
help:
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'
