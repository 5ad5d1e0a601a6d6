package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repo writes files (path to content) into a temporary repository root.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for path, content := range files {
		full := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

var operatorFlags = parseHelp([]byte(`Usage: broker-operator [flags]

  -admin-timeout duration
    	Timeout of each admin API request. (default 10s)
  -eviction-webhook-bind-address string
    	Where the webhook listens.
  -leader-elect
    	Elect a leader. (default true)
  -v value
    	number for the log level verbosity
`))

// good is a repository whose docs name only what exists.
func good() map[string]string {
	return map[string]string{
		"pkg/writeback/doc.go":  "package writeback\n",
		"pkg/gen/fake/fake.go":  "package fake\n",
		"deploy/rbac/role.yaml": "",
		"README.md": "# Title\n\nSee [scaling](docs/scaling.md#scale-down-pre-flight), [below](#the-two-commands),\n" +
			"[the role](deploy/rbac/role.yaml) and [a site](https://example.com/x.md#nowhere).\n\n" +
			"## The two commands\n\n`pkg/writeback/doc.go`, `deploy/`, `pkg/gen/fake.NewClientset`, `charts/redpanda/values.yaml`\n" +
			"(Redpanda's), `pkg/kubelet/images/types.go` (Kubernetes'), `_output/bin/x`, `<cluster>/x`.\n\n" +
			"Flags: `--leader-elect`, `--admin-timeout=5s`, `-v=2`, `--eviction-webhook-*`, `--smp` (Seastar),\n" +
			"`-count` and `-seed` (go test, harnesses), `kubectl apply --dry-run=server`, `broker-operator --help`,\n" +
			"`broker-operator -v=4 --leader-elect=false`.\n\n" +
			"```sh\nbroker-operator --admin-timeout=1s   # comment --not-a-flag\nkubectl scale bc/x --replicas=2\n```\n",
		"docs/scaling.md": "# Scaling\n\n## Scale-down `pre-flight`\n\n## Scale-down `pre-flight`\n\nBack to the [README](../README.md), [again](#scale-down-pre-flight-1).\n\n" +
			"```sh\n# not a heading\n```\n",
	}
}

func problems(t *testing.T, files map[string]string) []string {
	t.Helper()
	ps, err := check(repo(t, files), operatorFlags)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

func TestGoodDocsPass(t *testing.T) {
	if ps := problems(t, good()); len(ps) != 0 {
		t.Fatalf("want no problems, got:\n%s", strings.Join(ps, "\n"))
	}
}

func TestFindsWhatDoesNotExist(t *testing.T) {
	for _, tc := range []struct {
		name, add, want string
	}{
		{"broken link", "See [the guide](docs/guide.md).", "README.md:20: link to docs/guide.md: no such file or directory"},
		{"link to a missing heading", "See [scaling](docs/scaling.md#scale-up).", "docs/scaling.md has no heading with anchor #scale-up"},
		{"in-page link to a missing heading", "See [above](#the-three-commands).", "README.md has no heading with anchor #the-three-commands"},
		{"a heading inside fenced code is no anchor", "See [it](docs/scaling.md#not-a-heading).", "has no heading with anchor #not-a-heading"},
		{"missing file", "The contract is in `pkg/writeback/contract.go`.", "`pkg/writeback/contract.go`: no such file or directory in the repository"},
		{"missing directory", "Roles in `deploy/rbac/roles/`.", "`deploy/rbac/roles/`: no such file"},
		{"missing package of an identifier", "Use `pkg/gen/fakes.NewClientset`.", "`pkg/gen/fakes.NewClientset`: no such file"},
		{"unknown flag", "Set `--leader-elections=false`.", "`--leader-elections=false`: broker-operator --help has no flag --leader-elections"},
		{"unknown flag prefix", "The `--webhook-*` flags.", "no flag starting with --webhook-"},
		{"unknown flag of a command line", "Run `broker-operator --workers=4`.", "broker-operator --help has no flag --workers"},
		{"unknown klog flag spelled -v", "Not `-vv=2`, which is unchecked, but `--vmodule=x=2`.", "no flag --vmodule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := good()
			files["README.md"] += "\n" + tc.add + "\n"
			ps := problems(t, files)
			if len(ps) != 1 || !strings.Contains(ps[0], tc.want) {
				t.Fatalf("want one problem containing %q, got:\n%s", tc.want, strings.Join(ps, "\n"))
			}
		})
	}
}

func TestFencedCommandLine(t *testing.T) {
	files := good()
	files["docs/run.md"] = "# Run\n\n```sh\n$ broker-operator --kubeconfig=x\n```\n"
	ps := problems(t, files)
	if len(ps) != 1 || !strings.HasPrefix(ps[0], "docs/run.md:4: ") || !strings.Contains(ps[0], "no flag --kubeconfig") {
		t.Fatalf("want docs/run.md:4 to lack --kubeconfig, got:\n%s", strings.Join(ps, "\n"))
	}
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"The scale-down pre-flight: racks and disks": "the-scale-down-pre-flight-racks-and-disks",
		"Node config (`redpanda.yaml`)":              "node-config-redpandayaml",
		"Rolling restarts, health gate, volumes":     "rolling-restarts-health-gate-volumes",
		"A **bold** [link](x.md) and snake_case":     "a-bold-link-and-snake_case",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}

func TestParseHelp(t *testing.T) {
	for _, f := range []string{"admin-timeout", "eviction-webhook-bind-address", "leader-elect", "v"} {
		if !operatorFlags[f] {
			t.Errorf("parseHelp missed -%s", f)
		}
	}
	if len(operatorFlags) != 4 {
		t.Errorf("parseHelp found %d flags, want 4: %v", len(operatorFlags), operatorFlags)
	}
}
