package admintest

import (
	"fmt"
	mathrand "math/rand/v2"
	"net"
	"strconv"
)

// Ports for cluster blocks are taken below Linux's default ephemeral range (32768-60999), so that
// outgoing connections do not race the simulator for them.
const (
	lowestPort  = 20000
	highestPort = 32767
)

// listenCluster reserves Options.PortsPerCluster consecutive ports on Options.Host for c and
// serves one broker on each. Blocks are aligned to their size, so the server's own blocks never
// fragment the range; the search starts at a random block (other programs use ports too) and
// tries every block of the range before it gives up. Callers hold s.mu.
func (s *Server) listenCluster(c *Cluster) error {
	n := s.opts.PortsPerCluster
	if n == 0 || s.closed {
		return nil // a closed server serves nothing new
	}
	blocks := (highestPort - lowestPort + 1) / n
	if blocks == 0 {
		return fmt.Errorf("admintest: PortsPerCluster %d exceeds the %d ports available", n, highestPort-lowestPort+1)
	}
	first := mathrand.IntN(blocks)
	for i := range blocks {
		base := lowestPort + ((first+i)%blocks)*n
		lns, ok := listenBlock(s.opts.Host, base, n)
		if !ok {
			continue
		}
		c.adminPort = base
		s.byPort[base] = c
		cfg := s.listenerTLS(c)
		for ordinal, ln := range lns {
			s.servers = append(s.servers, s.serveOn(ln, s.brokerHandler(c.Namespace, c.Name, ordinal), cfg))
		}
		return nil
	}
	return fmt.Errorf("admintest: no %d consecutive free ports on %s between %d and %d for cluster %s/%s", n, s.opts.Host, lowestPort, highestPort, c.Namespace, c.Name)
}

// listenBlock listens on host's ports base to base+n-1, all or none.
func listenBlock(host string, base, n int) ([]net.Listener, bool) {
	lns := make([]net.Listener, 0, n)
	for port := base; port < base+n; port++ {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			return nil, false
		}
		lns = append(lns, ln)
	}
	return lns, true
}

// AdminPort is the first of the cluster's ports: the broker with ordinal O listens on
// AdminPort+O. Set it as the BrokerCluster's spec.adminAPI.port so that
// Server.BrokerAddressTemplate renders these ports.
func (c *Cluster) AdminPort() int { return c.adminPort }
