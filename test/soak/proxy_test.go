package soak

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/test/harness"
)

// fakeAPIServer answers the few requests the proxy tests make, and holds watch streams open
// until the test ends, sending one event per line written to events.
func fakeAPIServer(t *testing.T, events chan string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Accept"); got != "application/json" {
			t.Errorf("%s %s: Accept %q, want application/json", r.Method, r.URL, got)
		}
		if r.Header.Get("Authorization") != "Bearer operator-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch {
		case r.URL.Query().Get("watch") == "true" && r.URL.Query().Get("resourceVersion") == "1":
			w.WriteHeader(http.StatusGone)
			fmt.Fprint(w, `{"kind":"Status","code":410}`)
		case r.URL.Query().Get("watch") == "true":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			for {
				select {
				case e := <-events:
					fmt.Fprintln(w, e)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case r.Method == http.MethodPatch:
			fmt.Fprint(w, `{"kind":"BrokerCluster","metadata":{"name":"bc","namespace":"ns","resourceVersion":"42"}}`)
		default:
			fmt.Fprint(w, `{"kind":"List","items":[]}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, p *Proxy, method, url string) *http.Response {
	t.Helper()
	return send(t, p, method, url, "")
}

// send makes a request with body through the proxy, as the operator would.
func send(t *testing.T, p *Proxy, method, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer operator-token")
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf")
	resp, err := p.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestProxyCountsRequests(t *testing.T) {
	events := make(chan string)
	up := fakeAPIServer(t, events)
	p, err := StartProxy(up.URL, http.DefaultTransport, harness.Lag{}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	base := p.URL() + "/apis/broker-operator.dev/v1alpha1/namespaces/ns/brokerclusters"
	for _, u := range []string{base, base, base + "?watch=true&sendInitialEvents=true", base + "?watch=true&resourceVersion=1"} {
		resp := do(t, p, http.MethodGet, u)
		if strings.Contains(u, "watch") && resp.StatusCode == http.StatusOK {
			resp.Body.Close() // a stream: the proxy's own end goes with it
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp := do(t, p, http.MethodPatch, base+"/bc/status")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	st := p.Stats()
	if st.Requests["list"] != 2 || st.Requests["watch"] != 2 || st.Requests["patch"] != 1 {
		t.Errorf("requests %v, want 2 lists, 2 watches, 1 patch", st.Requests)
	}
	if st.Listings["brokerclusters"] != 3 || st.Relists() != 2 {
		t.Errorf("listings %v (relists %d), want 3 (2)", st.Listings, st.Relists())
	}
	if st.Gone != 1 {
		t.Errorf("410s %d, want 1", st.Gone)
	}
}

func TestProxyCutsAndDelaysWatches(t *testing.T) {
	events := make(chan string)
	up := fakeAPIServer(t, events)
	p, err := StartProxy(up.URL, http.DefaultTransport, harness.Lag{Min: 150 * time.Millisecond, Max: 150 * time.Millisecond}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	resp := do(t, p, http.MethodGet, p.URL()+"/api/v1/namespaces/ns/pods?watch=true")
	defer resp.Body.Close()
	lines := bufio.NewReader(resp.Body)
	read := func() (string, time.Duration, error) {
		start := time.Now()
		line, err := lines.ReadString('\n')
		return strings.TrimSpace(line), time.Since(start), err
	}

	events <- `{"type":"ADDED","n":1}`
	if line, _, err := read(); err != nil || line != `{"type":"ADDED","n":1}` {
		t.Fatalf("first event %q, %v", line, err)
	}

	p.SetLag(true)
	go func() { events <- `{"type":"ADDED","n":2}` }()
	line, took, err := read()
	if err != nil || line != `{"type":"ADDED","n":2}` {
		t.Fatalf("second event %q, %v", line, err)
	}
	if took < 150*time.Millisecond {
		t.Errorf("with lag on, an event arrived after %s, want at least 150ms", took)
	}
	p.SetLag(false)

	if n := p.CutWatches(); n != 1 {
		t.Fatalf("cut %d watches, want 1", n)
	}
	if _, _, err := read(); err == nil {
		t.Error("the cut stream still delivers")
	}
	if st := p.Stats(); st.WatchesCut != 1 {
		t.Errorf("watches cut %d, want 1", st.WatchesCut)
	}
}
