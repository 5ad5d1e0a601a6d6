package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// testCRD is a generated CRD, cut down: a field of its own, a Kubernetes type, a map, a list.
const testCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  versions:
  - name: v1alpha1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas:
                type: integer
              storage:
                type: object
                properties:
                  size:
                    type: string
              affinity:
                type: object
                properties:
                  podAntiAffinity:
                    type: object
              clusterConfig:
                type: object
                additionalProperties:
                  type: string
              maintenanceWindows:
                type: array
                items:
                  type: object
                  properties:
                    start:
                      type: string
          status:
            type: object
            properties:
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    reason:
                      type: string
`

// testFacts are the facts of the test repositories: the flags of operatorFlags but -v and
// --eviction-webhook-bind-address required, two condition reasons, two event reasons, the
// fields of testCRD with spec.affinity and status.conditions Kubernetes types.
func testFacts(t *testing.T) *facts {
	t.Helper()
	fields, maps, due, err := crdFields([]byte(testCRD), map[string]bool{"spec.affinity": true, "status.conditions": true, "spec.clusterConfig": true})
	if err != nil {
		t.Fatal(err)
	}
	return &facts{
		flags:            operatorFlags,
		required:         map[string]bool{"admin-timeout": true, "leader-elect": true},
		conditionReasons: map[string]bool{"Steady": true, "ScalingUp": true},
		eventReasons:     map[string]bool{"ScaleUp": true, "ScalingUp": true},
		fields:           fields, maps: maps, fieldsDue: due,
	}
}

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
		"docs/troubleshooting.md": "# Troubleshooting\n\n" +
			"| condition | condition reason | what to do |\n| --- | --- | --- |\n| Scaling | `Steady` | nothing |\n| Scaling | `ScalingUp` | wait; a \\| is no border, nor is `a|b` |\n\n" +
			"| event reason | what |\n| --- | --- |\n| `ScaleUp`, `ScalingUp` | a broker joins |\n\n" +
			"The Scaling condition with reason `ScalingUp`; a pod's with reason `Unschedulable` (the scheduler's).\n\n" +
			"| reason | of something else |\n| --- | --- |\n| `NotOurs` | unchecked |\n",
		"docs/fields.md": "# Fields\n\n`spec.replicas`, `spec.storage`, `spec.storage.size: 10Gi`, `spec.affinity`,\n" +
			"`spec.affinity.podAntiAffinity` (Kubernetes'), `spec.clusterConfig`, `spec.clusterConfig.log_segment_size`,\n" +
			"`spec.maintenanceWindows`, `spec.maintenanceWindows[].start`, `status.conditions`, `status.conditions[0].reason`,\n" +
			"a Pod's `spec.nodeName`, `spec.<field>`, `spec.*`.\n",
	}
}

func problems(t *testing.T, files map[string]string) []string {
	t.Helper()
	ps, err := check(repo(t, files), testFacts(t))
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
		{"unknown field", "Set `spec.replica: 3`.", "`spec.replica: 3`: the CRDs (deploy/crd/bases) have no field spec.replica"},
		{"unknown field of a list's items", "See `spec.maintenanceWindows[0].end`.", "have no field spec.maintenanceWindows.end"},
		{"unknown status field", "See `status.currentReplicas`.", "have no field status.currentReplicas"},
		{"unknown condition reason in a table", "| condition reason | what |\n| --- | --- |\n| `Stedy` | x |", "README.md:22: `Stedy`: no condition of the operator has this reason"},
		{"event reason that is a condition reason only", "| event reason | what |\n| --- | --- |\n| `Steady` | x |", "`Steady`: no event of the operator has this reason"},
		{"unknown reason in prose", "Degraded with reason `AdminAPIDown`.", "reason `AdminAPIDown`: no condition or event of the operator has this reason"},
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

func TestFindsWhatIsOnNoPage(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		cut        []string
		want       string
	}{
		{"flag", "README.md", []string{"`--admin-timeout=5s`, ", "broker-operator --admin-timeout=1s   # comment --not-a-flag\n"}, "broker-operator --help's flag --admin-timeout is on no page"},
		{"flag named in a command line only", "README.md", []string{"Flags: `--leader-elect`, "}, ""},
		{"condition reason", "docs/troubleshooting.md", []string{"| Scaling | `Steady` | nothing |\n"}, "the condition reason Steady is in no table column headed \"condition reason\""},
		{"condition reason in prose only", "docs/troubleshooting.md", []string{"| Scaling | `ScalingUp` | wait; a \\| is no border, nor is `a|b` |\n"}, "the condition reason ScalingUp is in no table column"},
		{"event reason", "docs/troubleshooting.md", []string{"`ScaleUp`, "}, "the event reason ScaleUp is in no table column headed \"event reason\""},
		{"field", "docs/fields.md", []string{"`spec.storage.size: 10Gi`, "}, "the CRD field spec.storage.size is on no page"},
		{"field of a list's items", "docs/fields.md", []string{"`spec.maintenanceWindows[].start`, "}, "the CRD field spec.maintenanceWindows.start is on no page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := good()
			for _, cut := range tc.cut {
				if !strings.Contains(files[tc.file], cut) {
					t.Fatalf("%s does not hold %q", tc.file, cut)
				}
				files[tc.file] = strings.Replace(files[tc.file], cut, "", 1)
			}
			ps := problems(t, files)
			if tc.want == "" {
				if len(ps) != 0 {
					t.Fatalf("want no problems, got:\n%s", strings.Join(ps, "\n"))
				}
				return
			}
			if len(ps) != 1 || !strings.HasPrefix(ps[0], tc.want) {
				t.Fatalf("want one problem starting %q, on no file, got:\n%s", tc.want, strings.Join(ps, "\n"))
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

func TestFieldsDue(t *testing.T) {
	f := testFacts(t)
	for p, want := range map[string]bool{
		"spec.replicas": true, "spec.storage": true, "spec.storage.size": true, "spec.maintenanceWindows.start": true,
		"spec.affinity": true, "spec.clusterConfig": true, "status.conditions": true,
		"spec": false, "spec.affinity.podAntiAffinity": false, "status.conditions.reason": false,
	} {
		if f.fieldsDue[p] != want {
			t.Errorf("fieldsDue[%s] = %v, want %v", p, f.fieldsDue[p], want)
		}
	}
	if !f.fields["spec.affinity.podAntiAffinity"] || !f.maps["spec.clusterConfig"] || f.maps["spec.storage"] {
		t.Errorf("fields or maps wrong: %v, %v", f.fields, f.maps)
	}
}

// testCluster stands for an API type: its own structs are walked, other types are leaves.
type testCluster struct {
	Spec   testSpec   `json:"spec"`
	Status testStatus `json:"status,omitempty"`
}

type testSpec struct {
	testInline `json:",inline"`
	Replicas   *int32            `json:"replicas,omitempty"`
	Windows    []testWindow      `json:"maintenanceWindows,omitempty"`
	Config     map[string]string `json:"clusterConfig,omitempty"`
	Since      time.Time         `json:"since"`
	internal   int               // unexported: no field
}

type testInline struct {
	Image string `json:"image"`
}

type testWindow struct {
	Start string `json:"start"`
}

type testStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

func TestKubernetesFields(t *testing.T) {
	_ = testSpec{internal: 1}
	got := kubernetesFields(reflect.TypeFor[testCluster]())
	want := map[string]bool{"spec.image": true, "spec.replicas": true, "spec.maintenanceWindows.start": true,
		"spec.clusterConfig": true, "spec.since": true, "status.conditions": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kubernetesFields = %v, want %v", got, want)
	}
}

func TestReasons(t *testing.T) {
	root := repo(t, map[string]string{
		"go.mod": "module example.com/op\n\ngo 1.26\n",
		"pkg/controller/internal/step/kinds.go": "package step\n\ntype Kind string\n\nconst (\n\tNone Kind = \"None\"\n" +
			"\tScaleUp Kind = \"ScaleUp\"\n\tWaitForLeadershipDrain Kind = \"WaitForLeadershipDrain\"\n)\n\n" +
			"const ReasonSteady = \"Steady\"\n\nconst EventNodeLost = \"NodeLost\"\n",
		"pkg/controller/reasons.go": "package controller\n\nimport \"example.com/op/pkg/controller/internal/step\"\n\n" +
			"const ReasonSteady = step.ReasonSteady\n\nconst (\n\tReasonPaused = \"Pa\" + \"used\"\n\tstale = \"Stale\"\n)\n",
		"pkg/controller/runner.go": "package controller\n\nimport \"example.com/op/pkg/controller/internal/step\"\n\n" +
			"func f(r *reconcile, s step.Step, kind string) {\n" +
			"\tr.c.cfg.Recorder.Event(r.bc, kind, string(s.Kind), s.Reason)\n" +
			"\tr.c.cfg.Recorder.Eventf(r.bc, kind, stale+\"Read\", \"%d\", 1)\n" +
			"\tr.c.cfg.Recorder.Event(r.bc, kind, ReasonPaused, \"\")\n" +
			"\tr.c.cfg.Recorder.Event(r.bc, kind, kind, \"\")\n}\n",
		"pkg/controller/runner_test.go": "package controller\n\nconst ReasonTest = \"Test\"\n",
		"pkg/generated/x/x.go":          "package x\n\nconst ReasonGenerated = \"Generated\"\n",
		"cmd/op/main.go": "package main\n\nimport \"example.com/op/pkg/controller\"\n\n" +
			"func main() { recorder.Event(nil, \"Normal\", controller.ReasonSteady+\"Again\", \"\") }\n",
	})
	conditions, events, ps, err := reasons(root, sourceDirs)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]bool{"Steady": true, "Paused": true}; !reflect.DeepEqual(conditions, want) {
		t.Errorf("condition reasons %v, want %v", conditions, want)
	}
	if want := map[string]bool{"ScaleUp": true, "StaleRead": true, "Paused": true, "SteadyAgain": true}; !reflect.DeepEqual(events, want) {
		t.Errorf("event reasons %v, want %v", events, want)
	}
	if len(ps) != 1 || ps[0].String() != "pkg/controller/runner.go:9: an event whose reason, kind, is not a constant: say in dynamicEvents (hack/docscheck) which constants it takes" {
		t.Errorf("want one problem, the event whose reason is kind, got %v", ps)
	}
}
