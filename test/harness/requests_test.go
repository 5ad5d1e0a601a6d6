package harness

import (
	"net/http/httptest"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		method, path string
		want         Request
	}{
		{"GET", "/apis/broker-operator.dev/v1alpha1/namespaces/ns/brokerclusters/a", Request{VerbGet, "brokerclusters", "ns", "a", "", false}},
		{"GET", "/apis/broker-operator.dev/v1alpha1/namespaces/ns/brokerclusters", Request{VerbList, "brokerclusters", "ns", "", "", true}},
		{"GET", "/apis/broker-operator.dev/v1alpha1/namespaces/ns/brokerclusters?watch=true", Request{VerbWatch, "brokerclusters", "ns", "", "", false}},
		{"GET", "/api/v1/pods?watch=1&labelSelector=x", Request{VerbWatch, "pods", "", "", "", false}},
		{"GET", "/api/v1/pods?watch=true&sendInitialEvents=true", Request{VerbWatch, "pods", "", "", "", true}},
		{"PATCH", "/apis/broker-operator.dev/v1alpha1/namespaces/ns/brokerclusters/a/status", Request{VerbPatch, "brokerclusters", "ns", "a", "status", false}},
		{"POST", "/apis/apps/v1/namespaces/ns/statefulsets", Request{VerbCreate, "statefulsets", "ns", "", "", false}},
		{"PUT", "/apis/apps/v1/namespaces/ns/statefulsets/a", Request{VerbUpdate, "statefulsets", "ns", "a", "", false}},
		{"DELETE", "/api/v1/namespaces/ns/pods/p", Request{VerbDelete, "pods", "ns", "p", "", false}},
		{"DELETE", "/api/v1/namespaces/ns/pods", Request{VerbDeleteCollection, "pods", "ns", "", "", false}},
		{"GET", "/api/v1/namespaces/ns", Request{VerbGet, "namespaces", "", "ns", "", false}},
		{"GET", "/healthz", Request{Verb: VerbOther}},
	} {
		req := httptest.NewRequest(tt.method, tt.path, nil)
		if got := Classify(req); got != tt.want {
			t.Errorf("%s %s: got %+v, want %+v", tt.method, tt.path, got, tt.want)
		}
	}
}
