package admintest

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
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
	// ReplicasPerBroker is what a draining broker starts with in replicas_left, how many
	// partitions a broker in maintenance leads, and how many partitions health_overview can
	// name; default 12.
	ReplicasPerBroker int
	// Clock drives drains, default the wall clock.
	Clock Clock
	// Username, Password, Users and TLS secure the clusters Server.Cluster creates, as the
	// fields of Security do; Server.NewCluster sets them per cluster.
	Username, Password string
	Users              map[string]string
	// TLS also serves the shared listener over TLS and makes BrokerAddressTemplate https. With
	// it, every listener serves TLS with a certificate for 127.0.0.1 and localhost, signed by
	// a CA made at Start (Server.CACertPEM).
	TLS bool
	// PortsPerCluster is how many consecutive ports a cluster reserves, one per pod ordinal;
	// default 16. A broker with a larger ordinal has no listener of its own.
	PortsPerCluster int
	// NodeOperationTimeout is node_management_operation_timeout_ms, after which a Fault with
	// Timeout answers 504; default 5 s, Redpanda's default (src/v/config/configuration.cc).
	NodeOperationTimeout time.Duration
	// AdvertiseLoopback makes every broker advertise 127.0.0.1 as its internal RPC address,
	// Redpanda's default without --advertise-rpc-addr, so the address never names the pod.
	AdvertiseLoopback bool
	// Version is the Redpanda version new brokers run, default DefaultVersion.
	Version string
	// ReplicationFactor of the simulated partitions in new clusters, default 1; see
	// Cluster.SetReplicationFactor.
	ReplicationFactor int
}

// Security is how one cluster's admin API is secured.
type Security struct {
	// Username and Password, when Username is set, turn admin_api_require_auth on with this
	// superuser; see Cluster.authenticate for the answers.
	Username, Password string
	// Users are further users, who are not superusers: name to password.
	Users map[string]string
	// TLS serves the cluster's listeners over TLS with a certificate for 127.0.0.1, ::1 and
	// localhost, signed by the server's CA (Server.CACertPEM).
	TLS bool
}

// DefaultVersion is the version simulated brokers report unless told otherwise.
const DefaultVersion = "v24.2.4"

// Server simulates many broker clusters. Each broker has its own loopback listener
// (Cluster.AdminPort plus its ordinal), as a real one does; for in-process tests, one shared
// listener also serves the broker with pod ordinal O of cluster namespace/name under
// /namespace/name/O/.
type Server struct {
	opts  Options
	clock Clock
	ln    net.Listener
	http  *http.Server
	url   string
	// scheme is "https" with Options.TLS, "http" otherwise.
	scheme   string
	tls      *tls.Config
	caPEM    []byte
	servers  []*http.Server
	refusals []string
	overlaps []string

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
	if opts.PortsPerCluster == 0 {
		opts.PortsPerCluster = 16
	}
	if opts.NodeOperationTimeout == 0 {
		opts.NodeOperationTimeout = 5 * time.Second
	}
	if opts.Version == "" {
		opts.Version = DefaultVersion
	}
	if opts.ReplicationFactor == 0 {
		opts.ReplicationFactor = 1
	}
	if opts.PortsPerCluster < 0 || opts.NodeOperationTimeout < 0 || opts.ReplicationFactor < 0 {
		return nil, errors.New("admintest: negative PortsPerCluster, NodeOperationTimeout or ReplicationFactor")
	}
	s := &Server{
		opts:     opts,
		clock:    opts.Clock,
		scheme:   "http",
		closing:  make(chan struct{}),
		clusters: make(map[clusterKey]*Cluster),
	}
	var err error
	if s.tls, s.caPEM, err = newTestTLS(); err != nil {
		return nil, err
	}
	if opts.TLS {
		s.scheme = "https"
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("admintest: listen on %s: %w", opts.Addr, err)
	}
	s.ln = ln
	s.url = s.scheme + "://" + ln.Addr().String()
	s.http = s.serveOn(ln, http.HandlerFunc(s.serve), opts.TLS)
	return s, nil
}

// serveOn serves h on ln, over TLS if asked.
func (s *Server) serveOn(ln net.Listener, h http.Handler, useTLS bool) *http.Server {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: quietLog}
	if useTLS {
		ln = tls.NewListener(ln, s.tls)
	}
	go func() { _ = srv.Serve(ln) }()
	return srv
}

// CACertPEM is the CA that signed the certificate of every TLS listener, made at Start.
func (s *Server) CACertPEM() []byte { return s.caPEM }

// BrokerAddressTemplate is the admin-address template that points the operator at each broker's
// own listener: SCHEME://127.0.0.1:{{add .Port .Ordinal}}, https with Options.TLS. It works for a
// BrokerCluster whose spec.adminAPI.port is its simulated cluster's AdminPort. (A cluster made TLS
// by NewCluster needs https: the operator switches to it for a BrokerCluster with
// spec.adminAPI.tls.)
func (s *Server) BrokerAddressTemplate() string {
	return s.scheme + "://127.0.0.1:{{add .Port .Ordinal}}"
}

// URL is the server's base URL, http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.url }

// AddressTemplate is the admin-address template that points the operator at the shared
// listener: SCHEME://127.0.0.1:PORT/{{.Namespace}}/{{.Name}}/{{.Ordinal}}. It ignores the admin
// port; real clients need BrokerAddressTemplate's one host:port per broker.
func (s *Server) AddressTemplate() string {
	return s.url + "/{{.Namespace}}/{{.Name}}/{{.Ordinal}}"
}

// BrokerURL is the admin API base URL of one broker.
func (s *Server) BrokerURL(namespace, name string, ordinal int) string {
	return fmt.Sprintf("%s/%s/%s/%d", s.url, namespace, name, ordinal)
}

// Cluster returns the cluster namespace/name, creating it on first use with the server's
// Options for security.
func (s *Server) Cluster(namespace, name string) *Cluster {
	c, _ := s.cluster(namespace, name, Security{Username: s.opts.Username, Password: s.opts.Password, Users: s.opts.Users, TLS: s.opts.TLS}, false)
	return c
}

// NewCluster creates the cluster namespace/name secured as sec says, whatever the server's
// Options; it fails if the cluster exists already.
func (s *Server) NewCluster(namespace, name string, sec Security) (*Cluster, error) {
	if sec.Username == "" && sec.Password != "" {
		return nil, errors.New("admintest: password given without a username")
	}
	return s.cluster(namespace, name, sec, true)
}

func (s *Server) cluster(namespace, name string, sec Security, mustBeNew bool) (*Cluster, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := clusterKey{namespace, name}
	if c := s.clusters[key]; c != nil {
		if mustBeNew {
			return nil, fmt.Errorf("admintest: cluster %s/%s exists already", namespace, name)
		}
		return c, nil
	}
	c := &Cluster{
		s: s, Namespace: namespace, Name: name, sec: sec,
		drainTime:    s.opts.DrainTime,
		rf:           s.opts.ReplicationFactor,
		leaderNodeID: -1,
		nextNodeID:   firstNodeID,
		members:      make(map[int]*member),
		byOrdinal:    make(map[int]*member),
		podRunning:   make(map[int]bool),
		podVersion:   make(map[int]string),
		podVolume:    make(map[int]string),
		podDown:      make(map[int]bool),
		brokerFaults: make(map[int]*faultSlot),
	}
	if err := s.listenCluster(c); err != nil {
		if mustBeNew {
			return nil, err
		}
		panic(err)
	}
	s.clusters[key] = c
	return c, nil
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
		s.mu.Lock()
		servers := s.servers
		s.mu.Unlock()
		for _, srv := range servers {
			_ = srv.Close()
		}
		s.inflight.Wait()
	})
}

// stableAddress is the internal RPC address a broker of this cluster advertises: its pod's
// stable host name, or 127.0.0.1 with Options.AdvertiseLoopback.
func (c *Cluster) stableAddress(ordinal int) string {
	if c.s.opts.AdvertiseLoopback || c.advertiseLoopback || ordinal < 0 {
		return "127.0.0.1"
	}
	return admin.StableHostName(c.Name, c.Namespace, ordinal)
}

// quietLog drops net/http's server log: refused and aborted requests are logged as calls.
var quietLog = log.New(io.Discard, "", 0)
