package admintest

import (
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
)

// Each broker answers at the root of its own scheme://host:port and nowhere else, as a real
// broker does. Redpanda's Go client takes nothing else either: rpadmin (redpanda-data/common-go
// rpadmin/admin.go, initURLs) parses every broker address with net/hostport.go's
// ParseHostMaybeScheme, which accepts host, host:port or scheme://host:port with at most the
// path "/", and sends each request to its path at that host's root.

// BrokerAddressTemplate is the admin-address template that points the operator at each broker's
// own listener: SCHEME://HOST:{{add .Port .Ordinal}} (HOST is Options.Host), https with
// Options.TLS. It works for a BrokerCluster whose spec.adminAPI.port is its simulated cluster's
// AdminPort. (A cluster made TLS by NewCluster needs https: the operator switches to it for a
// BrokerCluster with spec.adminAPI.tls.) A named pool's brokers listen on ports of their own,
// which .Port cannot reach: the template names each pool that exists when it is made, by its
// cluster's AdminPort and its StatefulSet (.Name <cluster>-<pool>), before that default.
func (s *Server) BrokerAddressTemplate() string {
	generic := s.scheme + "://" + net.JoinHostPort(s.opts.Host, "{{add .Port .Ordinal}}")
	var b strings.Builder
	for i, p := range s.namedPools() {
		fmt.Fprintf(&b, "{{%s and (eq .Port %d) (eq .Name %q)}}%s", ifKeyword(i), p.c.adminPort, p.StatefulSet(), s.poolURLTemplate(s.scheme, p.adminPort))
	}
	if b.Len() == 0 {
		return generic
	}
	return b.String() + "{{else}}" + generic + "{{end}}"
}

// AddressTemplateFor is an admin-address template that reaches the brokers of the clusters
// given, each on its own listener, whatever spec.adminAPI.port their BrokerClusters name; any
// other cluster it renders as BrokerAddressTemplate does. It serves tests whose BrokerClusters
// keep the default admin port. It names each given cluster's default pool (.Name <cluster>) and
// the named pools it has when the template is made (.Name <cluster>-<pool>).
func (s *Server) AddressTemplateFor(clusters ...*Cluster) string {
	if len(clusters) == 0 {
		return s.BrokerAddressTemplate()
	}
	var b strings.Builder
	i := 0
	for _, c := range clusters {
		pools := []*Pool{c.Pool("")}
		for _, name := range c.Pools() {
			pools = append(pools, c.Pool(name))
		}
		for _, p := range pools {
			fmt.Fprintf(&b, "{{%s and (eq .Namespace %q) (eq .Name %q)}}%s", ifKeyword(i), c.Namespace, p.StatefulSet(), s.poolURLTemplate(c.scheme(), p.adminPort))
			i++
		}
	}
	return b.String() + "{{else}}" + s.BrokerAddressTemplate() + "{{end}}"
}

// ifKeyword opens the i-th branch of an if-chain.
func ifKeyword(i int) string {
	if i == 0 {
		return "if"
	}
	return "else if"
}

// poolURLTemplate renders the URL of the broker at .Ordinal of the block starting at base.
func (s *Server) poolURLTemplate(scheme string, base int) string {
	return scheme + "://" + net.JoinHostPort(s.opts.Host, fmt.Sprintf("{{add %d .Ordinal}}", base))
}

// namedPools are every cluster's named pools, by port.
func (s *Server) namedPools() []*Pool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Pool
	for _, base := range slices.Sorted(maps.Keys(s.byPort)) {
		if b := s.byPort[base]; b.pool != "" {
			out = append(out, b.c.pools[b.pool])
		}
	}
	return out
}

// scheme is the scheme of the cluster's listeners.
func (c *Cluster) scheme() string {
	if c.sec.TLS {
		return "https"
	}
	return "http"
}

// urlAt is the base URL of the broker at this ordinal of the block starting at base,
// scheme://host:port; there is none for an ordinal beyond Options.PortsPerCluster. It reads
// only fields that never change.
func (c *Cluster) urlAt(base, ordinal int) (string, bool) {
	if ordinal < 0 || ordinal >= c.s.opts.PortsPerCluster {
		return "", false
	}
	return c.scheme() + "://" + net.JoinHostPort(c.s.opts.Host, strconv.Itoa(base+ordinal)), true
}

// brokerURL is the base URL of pod p's broker, if its pool exists. Callers hold s.mu.
func (c *Cluster) brokerURL(p pod) (string, bool) {
	base := c.adminPort
	if p.pool != "" {
		pool := c.pools[p.pool]
		if pool == nil {
			return "", false
		}
		base = pool.adminPort
	}
	return c.urlAt(base, p.ordinal)
}

// URLs returns the admin API base URLs of brokers 0 to replicas-1, each its own listener
// (scheme://HOST:AdminPort+ordinal). It panics when replicas exceeds Options.PortsPerCluster.
func (c *Cluster) URLs(replicas int) []string { return c.urls(c.adminPort, "", replicas) }

// urls are the URLs of ordinals 0 to replicas-1 of the pool whose block starts at base.
func (c *Cluster) urls(base int, pool string, replicas int) []string {
	urls := make([]string, replicas)
	for i := range urls {
		u, ok := c.urlAt(base, i)
		if !ok {
			panic(fmt.Sprintf("admintest: %s/%s: ordinal %d has no listener; raise Options.PortsPerCluster", c.Namespace, c.setName(pool), i))
		}
		urls[i] = u
	}
	return urls
}

// brokerAt finds the broker whose listener is host:port (as a URL's Host writes it): the
// cluster and the pod. Callers hold s.mu.
func (s *Server) brokerAt(hostPort string) (*Cluster, pod, bool) {
	host, portText, err := net.SplitHostPort(hostPort)
	if err != nil {
		return nil, pod{}, false
	}
	ip, want := net.ParseIP(host), net.ParseIP(s.opts.Host)
	port, err := strconv.Atoi(portText)
	if ip == nil || !ip.Equal(want) || err != nil || port < lowestPort {
		return nil, pod{}, false
	}
	n := s.opts.PortsPerCluster
	base := lowestPort + (port-lowestPort)/n*n
	b, ok := s.byPort[base]
	if !ok {
		return nil, pod{}, false
	}
	return b.c, pod{b.pool, port - base}, true
}
