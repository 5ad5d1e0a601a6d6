package race

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/test/history"
)

// A write through the wrapped transport is recorded in the history with the precondition it
// sent, the object and audit ID it was answered with, in the reconcile its context carries;
// a refused write with its status code and nothing answered.
func TestRecorderWritesTheHistory(t *testing.T) {
	code := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Audit-Id", "audit-1")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, `{"kind":"BrokerCluster","metadata":{"name":"a","namespace":"ns","uid":"u-1","resourceVersion":"42"}}`)
	}))
	defer srv.Close()
	hist := history.NewRecorder("p")
	rec := NewRecorder(RecorderOptions{History: hist})
	client := &http.Client{Transport: rec.Wrap(http.DefaultTransport)}
	ctx := hist.BeginReconcile(context.Background(), 3, "brokerclusters", "ns", "a")
	url := srv.URL + "/apis/brokers.example.com/v1alpha1/namespaces/ns/brokerclusters/a/status"
	for _, c := range []int{http.StatusOK, http.StatusConflict} {
		code = c
		req, err := http.NewRequestWithContext(ctx, http.MethodPatch, url, strings.NewReader(`{"metadata":{"resourceVersion":"41"}}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if body, _ := io.ReadAll(resp.Body); !strings.Contains(string(body), `"42"`) {
			t.Errorf("the caller got body %q", body)
		}
		_ = resp.Body.Close()
	}

	events := hist.History().Events
	if len(events) != 2 {
		t.Fatalf("recorded %d events, want 2: %v", len(events), events)
	}
	ok, refused := events[0], events[1]
	key := history.Key{Resource: "brokerclusters", Namespace: "ns", Name: "a"}
	if ok.Kind != history.KindWrite || ok.Key != key || ok.Verb != "patch" || ok.Precondition != "41" || ok.RV != "42" ||
		ok.UID != "u-1" || ok.Code != 200 || ok.AuditID != "audit-1" || ok.Worker != 3 || ok.Reconcile == 0 || ok.End < ok.Start {
		t.Errorf("successful write recorded as %+v", ok)
	}
	if refused.Code != http.StatusConflict || refused.RV != "" || refused.Precondition != "41" || refused.Reconcile != ok.Reconcile {
		t.Errorf("refused write recorded as %+v", refused)
	}
}
