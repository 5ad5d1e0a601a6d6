package harness

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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

func TestReadWrittenLeavesTheBodyForTheCaller(t *testing.T) {
	for _, tt := range []struct {
		body string
		want Written
		ok   bool
	}{
		{`{"kind":"Pod","metadata":{"name":"p","namespace":"ns","resourceVersion":"7"}}`, Written{"p", "ns", "7"}, true},
		{`{"kind":"Status","status":"Success"}`, Written{}, false},
		{`not json`, Written{}, false},
	} {
		resp := &http.Response{Body: io.NopCloser(strings.NewReader(tt.body))}
		got, ok, err := ReadWritten(resp)
		if err != nil || ok != tt.ok || got != tt.want {
			t.Errorf("ReadWritten(%s) = %+v, %v, %v; want %+v, %v", tt.body, got, ok, err, tt.want, tt.ok)
		}
		if rest, _ := io.ReadAll(resp.Body); string(rest) != tt.body {
			t.Errorf("body left %q, want %q", rest, tt.body)
		}
	}
}
