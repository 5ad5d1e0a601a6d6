package controller

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/broker-operator/broker-operator/"

// deps lists every package pkg depends on, itself excluded, as go list -deps sees them.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var list []string
	for _, p := range strings.Fields(string(out)) {
		if p != module+pkg {
			list = append(list, p)
		}
	}
	return list
}

// The rooms of pkg/controller are kept apart by the compiler: imports run only down. The pure
// decision (internal/step) makes no call: it depends on no client-go package and nothing of
// pkg/admin; it and the Kubernetes objects (internal/objects) never import the brokers' view
// (internal/brokers), and step imports neither brokers nor objects.
func TestRoomsImportOnlyDown(t *testing.T) {
	rules := []struct {
		room      string
		forbidden []string
	}{
		{"pkg/controller/internal/step", []string{"k8s.io/client-go", module + "pkg/admin", module + "pkg/controller/internal/brokers", module + "pkg/controller/internal/objects"}},
		{"pkg/controller/internal/objects", []string{module + "pkg/controller/internal/brokers", module + "pkg/controller/internal/step"}},
		{"pkg/controller/internal/brokerpod", []string{module + "pkg/controller/internal/"}},
	}
	for _, r := range rules {
		for _, dep := range deps(t, r.room) {
			for _, f := range r.forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f)) {
					t.Errorf("%s depends on %s", r.room, dep)
				}
			}
		}
	}
}
