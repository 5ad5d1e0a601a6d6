package admintest

import (
	"fmt"
	"net"
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
// BrokerCluster with spec.adminAPI.tls.)
func (s *Server) BrokerAddressTemplate() string {
	return s.scheme + "://" + net.JoinHostPort(s.opts.Host, "{{add .Port .Ordinal}}")
}

// AddressTemplateFor is an admin-address template that reaches the brokers of the clusters
// given, each on its own listener, whatever spec.adminAPI.port their BrokerClusters name; any
// other cluster it renders as BrokerAddressTemplate does. It serves tests whose BrokerClusters
// keep the default admin port.
func (s *Server) AddressTemplateFor(clusters ...*Cluster) string {
	var b strings.Builder
	for i, c := range clusters {
		keyword := "if"
		if i > 0 {
			keyword = "else if"
		}
		port := fmt.Sprintf("{{add %d .Ordinal}}", c.adminPort)
		fmt.Fprintf(&b, "{{%s and (eq .Namespace %q) (eq .Name %q)}}%s://%s", keyword, c.Namespace, c.Name, c.scheme(), net.JoinHostPort(s.opts.Host, port))
	}
	if len(clusters) == 0 {
		return s.BrokerAddressTemplate()
	}
	return b.String() + "{{else}}" + s.BrokerAddressTemplate() + "{{end}}"
}

// scheme is the scheme of the cluster's listeners.
func (c *Cluster) scheme() string {
	if c.sec.TLS {
		return "https"
	}
	return "http"
}

// brokerURL is the base URL of the broker with this ordinal, scheme://host:port; there is none
// for an ordinal beyond Options.PortsPerCluster. It reads only fields that never change.
func (c *Cluster) brokerURL(ordinal int) (string, bool) {
	if ordinal < 0 || ordinal >= c.s.opts.PortsPerCluster {
		return "", false
	}
	return c.scheme() + "://" + net.JoinHostPort(c.s.opts.Host, strconv.Itoa(c.adminPort+ordinal)), true
}

// URLs returns the admin API base URLs of brokers 0 to replicas-1, each its own listener
// (scheme://HOST:AdminPort+ordinal). It panics when replicas exceeds Options.PortsPerCluster.
func (c *Cluster) URLs(replicas int) []string {
	urls := make([]string, replicas)
	for i := range urls {
		u, ok := c.brokerURL(i)
		if !ok {
			panic(fmt.Sprintf("admintest: %s/%s: ordinal %d has no listener; raise Options.PortsPerCluster", c.Namespace, c.Name, i))
		}
		urls[i] = u
	}
	return urls
}

// brokerAt finds the broker whose listener is host:port (as a URL's Host writes it): the
// cluster and the ordinal. Callers hold s.mu.
func (s *Server) brokerAt(hostPort string) (*Cluster, int, bool) {
	host, portText, err := net.SplitHostPort(hostPort)
	if err != nil {
		return nil, 0, false
	}
	ip, want := net.ParseIP(host), net.ParseIP(s.opts.Host)
	port, err := strconv.Atoi(portText)
	if ip == nil || !ip.Equal(want) || err != nil || port < lowestPort {
		return nil, 0, false
	}
	n := s.opts.PortsPerCluster
	base := lowestPort + (port-lowestPort)/n*n
	c := s.byPort[base]
	if c == nil {
		return nil, 0, false
	}
	return c, port - base, true
}
