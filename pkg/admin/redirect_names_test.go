package admin

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// namedCluster serves test brokers under DNS names that exist only in its dialer: every name
// maps to a listener on 127.0.0.1, and nothing is resolved.
type namedCluster struct {
	mu    sync.Mutex
	addrs map[string]string // canonical "host:port" -> 127.0.0.1 listener
}

func (n *namedCluster) serve(t *testing.T, h http.Handler, names ...string) {
	t.Helper()
	addr := strings.TrimPrefix(mustURL(t, h), "http://")
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.addrs == nil {
		n.addrs = map[string]string{}
	}
	for _, name := range names {
		n.addrs[name] = addr
	}
}

func (n *namedCluster) transport() *http.Transport {
	return &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		n.mu.Lock()
		real, ok := n.addrs[net.JoinHostPort(canonicalHost(host), port)]
		n.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("test dialer: no host %s", addr)
		}
		return (&net.Dialer{}).DialContext(ctx, network, real)
	}}
}

// follower answers GET /v1/brokers with members advertising the given internal RPC addresses and
// redirects every other call to location plus the request's path, as redirect_to_leader does.
func follower(location string, advertised ...string) *recorder {
	var entries []string
	for i, a := range advertised {
		entries = append(entries, fmt.Sprintf(`{"node_id":%d,"membership_status":"active","is_alive":true,"internal_rpc_address":%q,"internal_rpc_port":33145}`, i, a))
	}
	return &recorder{handler: func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/brokers" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "["+strings.Join(entries, ",")+"]")
			return
		}
		w.Header().Set("Location", location+r.URL.Path+"?redirect=1")
		w.WriteHeader(http.StatusTemporaryRedirect)
	}}
}

func (r *recorder) paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, req := range r.requests {
		out = append(out, req.Method+" "+req.URL.Path)
	}
	return out
}

func TestRedirectToTheLeaderUnderItsAdvertisedNameIsFollowed(t *testing.T) {
	// The client knows the brokers by their short Service names; Redpanda redirects to the
	// leader's advertised RPC address, fully qualified with a trailing dot.
	var n namedCluster
	fol := follower("http://rp-1.rp.brokers.svc.cluster.local.:9644",
		"rp-0.rp.brokers.svc.cluster.local.", "rp-1.rp.brokers.svc.cluster.local.")
	leader := &recorder{status: http.StatusOK, body: `{}`}
	n.serve(t, fol, "rp-0.rp.brokers.svc:9644")
	n.serve(t, leader, "rp-1.rp.brokers.svc:9644", "rp-1.rp.brokers.svc.cluster.local:9644")
	c := mustClient(t, Config{URLs: []string{"http://rp-0.rp.brokers.svc:9644", "http://rp-1.rp.brokers.svc:9644"},
		Username: "admin", Password: "pw", Transport: n.transport()})

	for range 2 {
		if err := c.Decommission(context.Background(), 5); err != nil {
			t.Fatalf("Decommission: %v", err)
		}
	}
	r := leader.last()
	if r == nil || r.Method != http.MethodPut || r.URL.Path != "/v1/brokers/5/decommission" || r.Host != "rp-1.rp.brokers.svc.cluster.local.:9644" {
		t.Fatalf("leader got %v, want the redirected PUT under the advertised name", r)
	}
	if u, p, ok := r.BasicAuth(); !ok || u != "admin" || p != "pw" {
		t.Errorf("leader got credentials %q %q %v, want them re-sent", u, p, ok)
	}
	// The broker list is read once, from the broker that redirected; the name is then known.
	want := []string{"PUT /v1/brokers/5/decommission", "GET /v1/brokers", "PUT /v1/brokers/5/decommission"}
	if got := fol.paths(); strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("the follower got %q, want %q", got, want)
	}
	if leader.count() != 2 {
		t.Errorf("the leader got %d requests, want 2", leader.count())
	}
}

func TestRedirectToAHostNoBrokerAdvertisesIsRefused(t *testing.T) {
	for name, tc := range map[string]struct{ location, why string }{
		"another host":     {"http://collector.example.net:9644", "nor an address a broker of the cluster advertises"},
		"another port":     {"http://rp-1.rp.brokers.svc.cluster.local:8080", "changes the scheme or port"},
		"another scheme":   {"https://rp-1.rp.brokers.svc.cluster.local:9644", "changes the scheme or port"},
		"loopback address": {"http://127.0.0.1:9644", "nor an address a broker of the cluster advertises"},
		"user info":        {"http://x:y@rp-1.rp.brokers.svc.cluster.local:9644", "carries user info"},
	} {
		t.Run(name, func(t *testing.T) {
			var n namedCluster
			fol := follower(tc.location, "rp-1.rp.brokers.svc.cluster.local", "127.0.0.1")
			stranger := &recorder{status: http.StatusOK, body: `{}`}
			n.serve(t, fol, "rp-0.rp.brokers.svc:9644")
			n.serve(t, stranger, "collector.example.net:9644", "rp-1.rp.brokers.svc.cluster.local:8080",
				"rp-1.rp.brokers.svc.cluster.local:9644", "127.0.0.1:9644")
			c := mustClient(t, Config{URLs: []string{"http://rp-0.rp.brokers.svc:9644"},
				Username: "admin", Password: "pw", Transport: n.transport()})

			err := c.Decommission(context.Background(), 5)
			if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("err = %v, want ErrUnavailable saying %q", err, tc.why)
			}
			if stranger.count() != 0 {
				t.Fatalf("the request and its credentials went to %s", tc.location)
			}
		})
	}
}

func TestErrorsNeverCarryTheCredentials(t *testing.T) {
	const user, password = "admin", "s3cret-Passw0rd"
	token := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	// A proxy on the way that echoes the request's Authorization header in its error.
	echo := mustURL(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status := http.StatusBadGateway
		switch r.URL.Path {
		case "/v1/brokers/1/maintenance":
			w.Header().Set("Location", "http://"+r.Header.Get("Authorization")+"@elsewhere.example.net/x")
			status = http.StatusTemporaryRedirect
		case "/v1/brokers/2/maintenance":
			w.Header().Set("Location", "http://elsewhere.example.net/x?auth="+strings.TrimPrefix(r.Header.Get("Authorization"), "Basic "))
			status = http.StatusTemporaryRedirect
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"message":"upstream refused %s (password %s)","code":%d}`, r.Header.Get("Authorization"), password, status)
	}))
	calls := map[string]func(Client) error{
		"5xx echoing the header": func(c Client) error { _, err := c.Brokers(context.Background()); return err },
		"unparsable redirect":    func(c Client) error { return c.EnableMaintenance(context.Background(), 1) },
		"redirect elsewhere":     func(c Client) error { return c.DisableMaintenance(context.Background(), 2) },
		"refused connection": func(Client) error {
			c := mustClient(t, Config{URLs: []string{refusingURL(t)}, Username: user, Password: password})
			return c.Decommission(context.Background(), 1)
		},
	}
	c := mustClient(t, Config{URLs: []string{echo}, Username: user, Password: password})
	for name, call := range calls {
		err := call(c)
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			for _, secret := range []string{password, token} {
				if strings.Contains(text, secret) {
					t.Errorf("%s: the error holds a credential: %s", name, text)
				}
			}
		}
	}
}
