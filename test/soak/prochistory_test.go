package soak

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/history"
)

// historyAPIServer answers as the apiserver would the writes TestProxyRecordsTheHistory makes,
// and streams the watch events written to events, one chunk each.
func historyAPIServer(t *testing.T, events chan string) *httptest.Server {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Audit-Id", fmt.Sprintf("audit-%d", requests.Add(1)))
		switch {
		case r.URL.Query().Get("watch") == "true":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			for e := range events {
				fmt.Fprint(w, e)
				w.(http.Flusher).Flush()
			}
		case strings.Contains(string(body), `"resourceVersion":"40"`):
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"kind":"Status","status":"Failure","code":409}`)
		case r.Method == http.MethodPatch:
			fmt.Fprint(w, `{"kind":"BrokerCluster","metadata":{"name":"bc","namespace":"ns","uid":"u-1","resourceVersion":"42"}}`)
		case r.Method == http.MethodPut:
			fmt.Fprint(w, `{"kind":"Lease","metadata":{"name":"lease","namespace":"op","uid":"l-1","resourceVersion":"7"},"spec":{"holderIdentity":"me"}}`)
		case r.Method == http.MethodDelete:
			fmt.Fprint(w, `{"kind":"Status","status":"Success","details":{"name":"bc","kind":"statefulsets","uid":"s-1"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The proxy records each write with its precondition and answer, the leadership the first
// Lease write naming a holder shows, the delete whose answer says the object is gone, and the
// deletions a watch stream delivers, even when an event comes in two chunks.
func TestProxyRecordsTheHistory(t *testing.T) {
	events := make(chan string)
	up := historyAPIServer(t, events)
	lease := history.Key{Resource: "leases", Namespace: "op", Name: "lease"}
	ph := NewProcessHistory("a-1", lease)
	p, err := StartProxy(up.URL, http.DefaultTransport, harness.Lag{}, 1, ph)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	bcs := p.URL() + "/apis/broker-operator.dev/v1alpha1/namespaces/ns/brokerclusters/bc"
	leaseURL := p.URL() + "/apis/coordination.k8s.io/v1/namespaces/op/leases/lease"
	for _, w := range []struct{ method, url, body string }{
		{http.MethodPatch, bcs + "/status", `{"metadata":{"resourceVersion":"41"}}`},
		{http.MethodPatch, bcs + "/status", `{"metadata":{"resourceVersion":"40"}}`},
		{http.MethodPut, leaseURL, `{"metadata":{"resourceVersion":"6"}}`},
		{http.MethodPut, leaseURL, `{"metadata":{"resourceVersion":"7"}}`},
		{http.MethodDelete, p.URL() + "/apis/apps/v1/namespaces/ns/statefulsets/bc", `{"preconditions":{"resourceVersion":"9"}}`},
	} {
		resp := send(t, p, w.method, w.url, w.body)
		if got, _ := io.ReadAll(resp.Body); len(got) == 0 && resp.StatusCode == http.StatusOK {
			t.Errorf("%s %s: the operator got an empty answer", w.method, w.url)
		}
		resp.Body.Close()
	}
	watch := do(t, p, http.MethodGet, p.URL()+"/api/v1/namespaces/ns/pods?watch=true")
	events <- `{"type":"ADDED","object":{"metadata":{"name":"bc-0","namespace":"ns","uid":"p-0"}}}` + "\n" + `{"type":"DELETED","object":{"metadata":{"name":"bc-1",`
	events <- `"namespace":"ns","uid":"p-1","resourceVersion":"50"}}}` + "\n"
	close(events)
	if _, err := io.ReadAll(watch.Body); err != nil {
		t.Fatal(err)
	}
	watch.Body.Close()

	var got []string
	for _, e := range ph.History().Events {
		got = append(got, fmt.Sprintf("%s w%d %s %s pre=%s uid=%s rv=%s code=%d audit=%s src=%s", e.Kind, e.Worker, e.Verb, e.Key, e.Precondition, e.UID, e.RV, e.Code, e.AuditID, e.Source))
	}
	want := []string{
		`write w-1 patch brokerclusters ns/bc pre=41 uid=u-1 rv=42 code=200 audit=audit-1 src=`,
		`write w-1 patch brokerclusters ns/bc pre=40 uid= rv= code=409 audit=audit-2 src=`,
		`write w-1 update leases op/lease pre=6 uid=l-1 rv=7 code=200 audit=audit-3 src=`,
		`leading w-3  leases op/lease pre= uid= rv= code=0 audit=audit-3 src=`,
		`write w-1 update leases op/lease pre=7 uid=l-1 rv=7 code=200 audit=audit-4 src=`,
		`write w-1 delete statefulsets ns/bc pre=9 uid= rv= code=200 audit=audit-5 src=`,
		`delete w-1  statefulsets ns/bc pre= uid=s-1 rv= code=0 audit= src=made`,
		`delete w-2  pods ns/bc-1 pre= uid=p-1 rv=50 code=0 audit= src=observed`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("history\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
