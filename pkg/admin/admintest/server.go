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
	// Host is the IP address every broker listens on, default 127.0.0.1. Tests that run in a
	// network namespace of their own may name another address of it (test/node does).
	Host string
	// DrainTime is how long a decommission drains in new clusters (Cluster.SetDrainTime changes
	// it per cluster). Zero: a drain finishes at the next moment anything looks at the cluster.
	DrainTime time.Duration
	// ReplicasPerBroker is what a draining broker starts with in replicas_left, how many
	// partitions a broker in maintenance leads, and how many partitions health_overview can
	// name; default 12.
	ReplicasPerBroker int
	// Clock drives drains, default the wall clock.
	Clock Clock
	// Username, Password, Users, TLS and ClientCAPEM secure the clusters Server.Cluster
	// creates, as the fields of Security do; Server.NewCluster sets them per cluster. TLS also
	// makes BrokerAddressTemplate https.
	Username, Password string
	Users              map[string]string
	TLS                bool
	ClientCAPEM        []byte
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
	// TLS serves the cluster's listeners over TLS with a certificate for 127.0.0.1, ::1,
	// localhost and Options.Host, signed by the server's CA (Server.CACertPEM).
	TLS bool
	// ClientCAPEM, with TLS, makes the listeners require a client certificate signed by one of
	// these CAs at the handshake, as Redpanda's admin_api_tls does with require_client_auth: true
	// and a truststore_file (src/v/config/tls_config.cc, get_credentials_builder: client_auth
	// REQUIRE, verified against the trust store). A client without one is refused before any
	// request is read. Server.Transport cannot check a certificate and refuses these clusters.
	ClientCAPEM []byte
}

// DefaultVersion is the version simulated brokers report unless told otherwise.
const DefaultVersion = "v24.2.4"

// Server simulates many broker clusters. Each broker has its own listener (Options.Host, port
// Cluster.AdminPort plus its ordinal), as a real one does, and answers only at the root of
// scheme://host:port.
type Server struct {
	opts  Options
	clock Clock
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
	byPort                 map[int]portBlock // by the block's first port
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

// Start starts a Server. Its clusters listen on opts.Host as they are created.
func Start(opts Options) (*Server, error) {
	if opts.Host == "" {
		opts.Host = "127.0.0.1"
	}
	if opts.ReplicasPerBroker == 0 {
		opts.ReplicasPerBroker = 12
	}
	if opts.ReplicasPerBroker < 0 || opts.DrainTime < 0 {
		return nil, errors.New("admintest: negative ReplicasPerBroker or DrainTime")
	}
	if err := (Security{Username: opts.Username, Password: opts.Password, TLS: opts.TLS, ClientCAPEM: opts.ClientCAPEM}).check(); err != nil {
		return nil, err
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
		byPort:   make(map[int]portBlock),
	}
	host := net.ParseIP(opts.Host)
	if host == nil {
		return nil, fmt.Errorf("admintest: Host %q is not an IP address", opts.Host)
	}
	// Fail here, not at the first cluster, when the address cannot be listened on.
	probe, err := net.Listen("tcp", net.JoinHostPort(opts.Host, "0"))
	if err != nil {
		return nil, fmt.Errorf("admintest: listen on %s: %w", opts.Host, err)
	}
	_ = probe.Close()
	if s.tls, s.caPEM, err = newTestTLS(host); err != nil {
		return nil, err
	}
	if opts.TLS {
		s.scheme = "https"
	}
	return s, nil
}

// serveOn serves h on ln, over TLS when cfg is set.
func (s *Server) serveOn(ln net.Listener, h http.Handler, cfg *tls.Config) *http.Server {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: quietLog}
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	go func() { _ = srv.Serve(ln) }()
	return srv
}

// CACertPEM is the CA that signed the certificate of every TLS listener, made at Start.
func (s *Server) CACertPEM() []byte { return s.caPEM }

// Cluster returns the cluster namespace/name, creating it on first use with the server's
// Options for security.
func (s *Server) Cluster(namespace, name string) *Cluster {
	sec := Security{Username: s.opts.Username, Password: s.opts.Password, Users: s.opts.Users, TLS: s.opts.TLS, ClientCAPEM: s.opts.ClientCAPEM}
	c, _ := s.cluster(namespace, name, sec, false)
	return c
}

// NewCluster creates the cluster namespace/name secured as sec says, whatever the server's
// Options; it fails if the cluster exists already.
func (s *Server) NewCluster(namespace, name string, sec Security) (*Cluster, error) {
	if err := sec.check(); err != nil {
		return nil, err
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
		byPod:        make(map[pod]*member),
		podRunning:   make(map[pod]bool),
		podVersion:   make(map[pod]string),
		podVolume:    make(map[pod]string),
		racks:        make(map[pod]string),
		disks:        make(map[pod]diskSpaceJSON),
		podDown:      make(map[pod]bool),
		brokerFaults: make(map[pod]*faultSlot),
		pools:        make(map[string]*Pool),
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
// stable host name, <set>-<ordinal>.<set>.<namespace>.svc.cluster.local where <set> is its
// pool's StatefulSet and headless Service, or 127.0.0.1 with Options.AdvertiseLoopback.
func (c *Cluster) stableAddress(p pod) string {
	if c.s.opts.AdvertiseLoopback || c.advertiseLoopback || p.ordinal < 0 {
		return "127.0.0.1"
	}
	return admin.StableHostName(c.setName(p.pool), c.Namespace, p.ordinal, admin.DefaultClusterDomain)
}

// quietLog drops net/http's server log: refused and aborted requests are logged as calls.
var quietLog = log.New(io.Discard, "", 0)
