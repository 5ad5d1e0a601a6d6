package chartcheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// loadCRD reads a generated CRD as kube-apiserver holds it (the internal version).
func loadCRD(t *testing.T, name string) *apiextensions.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(deployDir, "crd/bases", name))
	if err != nil {
		t.Fatal(err)
	}
	var v1 apiextv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &v1); err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := apiextensions.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := apiextv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var crd apiextensions.CustomResourceDefinition
	if err := scheme.Convert(&v1, &crd, nil); err != nil {
		t.Fatal(err)
	}
	crd.Status.StoredVersions = []string{crd.Spec.Versions[0].Name}
	return &crd
}

// celValidator is kube-apiserver's CEL validator of a generated CRD, with its schema.
func celValidator(t *testing.T, name string) (*schema.Structural, *cel.Validator) {
	t.Helper()
	crd := loadCRD(t, name)
	props := crd.Spec.Validation
	if props == nil {
		props = crd.Spec.Versions[0].Schema
	}
	s, err := schema.NewStructural(props.OpenAPIV3Schema)
	if err != nil {
		t.Fatal(err)
	}
	return s, cel.NewValidator(s, true, celconfig.PerCallLimit)
}

// celChecker evaluates the CEL rules of a CRD of kind. The check it returns validates an
// object named metaName with spec (an update from old, nil for a create) and fails the test
// unless it is refused with a message holding want ("": accepted).
func celChecker(t *testing.T, file, kind string) func(name, metaName string, spec, old map[string]any, want string) {
	t.Helper()
	s, v := celValidator(t, file)
	object := func(name string, spec map[string]any) map[string]any {
		return map[string]any{"apiVersion": "broker-operator.dev/v1alpha1", "kind": kind,
			"metadata": map[string]any{"name": name, "namespace": "team"}, "spec": spec}
	}
	return func(name, metaName string, spec, oldSpec map[string]any, want string) {
		t.Helper()
		var old any
		if oldSpec != nil {
			old = object(metaName, oldSpec)
		}
		errs, _ := v.Validate(context.Background(), field.NewPath(""), s, object(metaName, spec), old, celconfig.RuntimeCELCostBudget)
		got := errs.ToAggregate()
		switch {
		case want == "" && got != nil:
			t.Errorf("%s: refused: %v", name, got)
		case want != "" && (got == nil || !strings.Contains(got.Error(), want)):
			t.Errorf("%s: want a refusal with %q, got %v", name, want, got)
		}
	}
}

// kube-apiserver refuses a CRD whose CEL rules it estimates too costly, and the refusal shows
// only when the CRD is applied. This runs its own validation of a CRD create, cost estimate
// included (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation), on every
// generated CRD, so that a rule over an unbounded list, map or string fails here.
func TestCRDsPassTheAPIServersValidation(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join(deployDir, "crd/bases"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		for _, err := range validation.ValidateCustomResourceDefinition(context.Background(), loadCRD(t, e.Name())) {
			t.Errorf("%s: %v", e.Name(), err)
		}
	}
}

// The BrokerTopic CRD's rules refuse what docs/topics.md says they refuse, with its messages,
// on create and on update, evaluated by kube-apiserver's CEL validator.
func TestBrokerTopicRules(t *testing.T) {
	check := celChecker(t, "broker-operator.dev_brokertopics.yaml", "BrokerTopic")
	spec := func(change func(map[string]any)) map[string]any {
		s := map[string]any{"clusterRef": map[string]any{"name": "kafka"}, "partitions": int64(3), "deletionPolicy": "Retain"}
		if change != nil {
			change(s)
		}
		return s
	}
	for _, tc := range []struct {
		name      string
		metaName  string
		spec, old map[string]any // old nil: a create
		want      string         // "" accepted
	}{
		{"a valid topic", "orders", spec(nil), nil, ""},
		{"a name with every allowed character", "x", spec(func(s map[string]any) { s["topicName"] = "Orders_v2.x-1" }), nil, ""},
		{"a space in the name", "x", spec(func(s map[string]any) { s["topicName"] = "a b" }), nil, "may hold only the characters"},
		{"the name ..", "x", spec(func(s map[string]any) { s["topicName"] = ".." }), nil, "cannot be '.' or '..'"},
		{"metadata.name too long for Kafka", strings.Repeat("a", 250), spec(nil), nil, "at most 249 characters"},
		{"metadata.name too long, with topicName", strings.Repeat("a", 250), spec(func(s map[string]any) { s["topicName"] = "t" }), nil, ""},
		{"replication.factor in config", "x", spec(func(s map[string]any) { s["config"] = map[string]any{"replication.factor": "3"} }), nil, "duplicates spec.replicationFactor"},
		{"other config keys", "x", spec(func(s map[string]any) { s["config"] = map[string]any{"retention.ms": "1"} }), nil, ""},
		{"fewer partitions", "x", spec(func(s map[string]any) { s["partitions"] = int64(2) }), spec(nil), "spec.partitions may only grow"},
		{"more partitions", "x", spec(func(s map[string]any) { s["partitions"] = int64(9) }), spec(nil), ""},
		{"topicName set later", "x", spec(func(s map[string]any) { s["topicName"] = "t" }), spec(nil), "spec.topicName is immutable"},
		{"topicName changed", "x", spec(func(s map[string]any) { s["topicName"] = "u" }), spec(func(s map[string]any) { s["topicName"] = "t" }), "spec.topicName is immutable"},
		{"replicationFactor set later", "x", spec(func(s map[string]any) { s["replicationFactor"] = int64(3) }), spec(nil), "spec.replicationFactor is immutable"},
		{"replicationFactor changed", "x", spec(func(s map[string]any) { s["replicationFactor"] = int64(1) }), spec(func(s map[string]any) { s["replicationFactor"] = int64(3) }), "spec.replicationFactor is immutable"},
		{"clusterRef changed", "x", spec(func(s map[string]any) { s["clusterRef"] = map[string]any{"name": "other"} }), spec(nil), "spec.clusterRef is immutable"},
		{"deletionPolicy changed", "x", spec(func(s map[string]any) { s["deletionPolicy"] = "Delete" }), spec(nil), ""},
	} {
		check(tc.name, tc.metaName, tc.spec, tc.old, tc.want)
	}
}
