//go:build tools

// Package tools pins the code generators in a module of their own, so that the operator's go.mod
// does not carry them.
package tools

import (
	_ "k8s.io/code-generator"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
