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

// portBlock is what a block of ports serves: the pods of one pool of a cluster.
type portBlock struct {
	c    *Cluster
	pool string
}

// listenCluster reserves the block of c's default pool (see reserveBlock); its first port is
// c's AdminPort. Callers hold s.mu.
func (s *Server) listenCluster(c *Cluster) error {
	base, err := s.reserveBlock(c, "")
	c.adminPort = base
	return err
}

// listenPool reserves the block of a named pool of c: each pool's brokers have listeners of
// their own, as every broker does. Callers hold s.mu.
func (s *Server) listenPool(c *Cluster, p *Pool) error {
	base, err := s.reserveBlock(c, p.name)
	p.adminPort = base
	return err
}

// reserveBlock reserves Options.PortsPerCluster consecutive ports on Options.Host for one pool
// of c and serves one of its pods on each, by ordinal; it returns the first port. Blocks are
// aligned to their size, so the server's own blocks never fragment the range; the search starts
// at a random block (other programs use ports too) and tries every block of the range before
// it gives up. Callers hold s.mu.
func (s *Server) reserveBlock(c *Cluster, pool string) (int, error) {
	n := s.opts.PortsPerCluster
	if n == 0 || s.closed {
		return 0, nil // a closed server serves nothing new
	}
	blocks := (highestPort - lowestPort + 1) / n
	if blocks == 0 {
		return 0, fmt.Errorf("admintest: PortsPerCluster %d exceeds the %d ports available", n, highestPort-lowestPort+1)
	}
	first := mathrand.IntN(blocks)
	for i := range blocks {
		base := lowestPort + ((first+i)%blocks)*n
		lns, ok := listenBlock(s.opts.Host, base, n)
		if !ok {
			continue
		}
		s.byPort[base] = portBlock{c: c, pool: pool}
		cfg := s.listenerTLS(c)
		for ordinal, ln := range lns {
			s.servers = append(s.servers, s.serveOn(ln, s.brokerHandler(c.Namespace, c.Name, pod{pool, ordinal}), cfg))
		}
		return base, nil
	}
	what := fmt.Sprintf("cluster %s/%s", c.Namespace, c.Name)
	if pool != "" {
		what = fmt.Sprintf("pool %s of %s", pool, what)
	}
	return 0, fmt.Errorf("admintest: no %d consecutive free ports on %s between %d and %d for %s", n, s.opts.Host, lowestPort, highestPort, what)
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
