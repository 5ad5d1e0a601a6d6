package chartcheck

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// maxAnnotationsSize is kube-apiserver's limit on an object's annotations, all together
// (k8s.io/apimachinery pkg/api/validation/objectmeta.go, TotalAnnotationSizeLimitB).
const maxAnnotationsSize = 256 * 1024

// `kubectl apply -k deploy/` is a client-side apply: it stores the whole CRD, as compact JSON, in
// the annotation kubectl.kubernetes.io/last-applied-configuration. The CRD embeds Kubernetes
// types (affinity, topology spread, tolerations, resources) with their descriptions, so it must
// stay well below the annotation limit, with room for kubectl's own fields.
func TestCRDsFitClientSideApply(t *testing.T) {
	dir := filepath.Join(deployDir, "crd/bases")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		compact, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if len(compact) > maxAnnotationsSize*3/4 {
			t.Errorf("%s is %d bytes as JSON, more than three quarters of the %d bytes kubectl apply's last-applied annotation may hold; "+
				"strip descriptions (controller-gen crd:maxDescLen) or document server-side apply", e.Name(), len(compact), maxAnnotationsSize)
		}
		t.Logf("%s: %d bytes as JSON (the annotation limit is %d)", e.Name(), len(compact), maxAnnotationsSize)
	}
}
