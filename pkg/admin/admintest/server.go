package admintest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// Options configure a Server. Zero values take the defaults noted.
type Options struct {
	// Addr is the listen address, default "127.0.0.1:0".
	Addr string
	// DrainTime is how long a decommission drains in new clusters (Cluster.SetDrainTime changes
	// it per cluster). Zero: a drain finishes at the next moment anything looks at the cluster.
	DrainTime time.Duration
	// ReplicasPerBroker is what a draining broker starts with in replicas_left, default 12.
	ReplicasPerBroker int
	// Clock drives drains, default the wall clock.
	Clock Clock
	// Username and Password, when Username is set, make every request need that basic auth.
	Username, Password string
}

// Server simulates many broker clusters behind one loopback HTTP server. The broker with pod
// ordinal O of cluster namespace/name answers under /namespace/name/O/ with the admin API v1 paths.
type Server struct {
	opts  Options
	clock Clock
	ln    net.Listener
	http  *http.Server
	url   string

	closing   chan struct{}
	closeOnce sync.Once
	inflight  sync.WaitGroup

	mu                     sync.Mutex
	closed                 bool
	clusters               map[clusterKey]*Cluster
	fault                  faultSlot
	calls                  []Call
	doubleDecommissions    []string
	leftBeforeDecommission []string
}

type clusterKey struct{ namespace, name string }

// NewServer starts a Server and panics if it cannot listen, as httptest.NewServer does.
func NewServer(opts Options) *Server {
	s, err := Start(opts)
	if err != nil {
		panic(err)
	}
	return s
}

// Start starts a Server listening on opts.Addr.
func Start(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.ReplicasPerBroker == 0 {
		opts.ReplicasPerBroker = 12
	}
	if opts.ReplicasPerBroker < 0 || opts.DrainTime < 0 {
		return nil, errors.New("admintest: negative ReplicasPerBroker or DrainTime")
	}
	if opts.Username == "" && opts.Password != "" {
		return nil, errors.New("admintest: password given without a username")
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("admintest: listen on %s: %w", opts.Addr, err)
	}
	s := &Server{
		opts:     opts,
		clock:    opts.Clock,
		ln:       ln,
		url:      "http://" + ln.Addr().String(),
		closing:  make(chan struct{}),
		clusters: make(map[clusterKey]*Cluster),
	}
	s.http = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.http.Serve(ln) }()
	return s, nil
}

// URL is the server's base URL, http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.url }

// AddressTemplate is the admin-address template that points the operator at this server:
// http://127.0.0.1:PORT/{{.Namespace}}/{{.Name}}/{{.Ordinal}}.
func (s *Server) AddressTemplate() string {
	return s.url + "/{{.Namespace}}/{{.Name}}/{{.Ordinal}}"
}

// BrokerURL is the admin API base URL of one broker.
func (s *Server) BrokerURL(namespace, name string, ordinal int) string {
	return fmt.Sprintf("%s/%s/%s/%d", s.url, namespace, name, ordinal)
}

// Cluster returns the cluster namespace/name, creating it on first use.
func (s *Server) Cluster(namespace, name string) *Cluster {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := clusterKey{namespace, name}
	if c := s.clusters[key]; c != nil {
		return c
	}
	c := &Cluster{
		s: s, Namespace: namespace, Name: name,
		drainTime:    s.opts.DrainTime,
		nextNodeID:   firstNodeID,
		members:      make(map[int]*member),
		byOrdinal:    make(map[int]*member),
		podRunning:   make(map[int]bool),
		brokerFaults: make(map[int]*faultSlot),
	}
	s.clusters[key] = c
	return c
}

// SetFault sets the fault for every broker of every cluster; the zero Fault clears it.
func (s *Server) SetFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault.f = f
}

// Close stops the server: held requests are let go, connections closed, and Close returns once
// no handler runs any more.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.closing)
		_ = s.http.Close()
		s.inflight.Wait()
	})
}

// stableAddress is the internal RPC address a broker of this cluster advertises.
func (c *Cluster) stableAddress(ordinal int) string {
	return admin.StableHostName(c.Name, c.Namespace, ordinal)
}
