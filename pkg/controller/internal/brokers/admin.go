package brokers

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/controller/trace"
)

// Config is what the brokers' view needs from the controller.
type Config struct {
	// Kube reads the Secrets a BrokerCluster names, a restart's pod, and a lost broker's claim,
	// volume and node (FactNodeGone), by name.
	Kube kubernetes.Interface
	// Addresses renders the brokers' admin URLs; Client holds the rest of the admin client's
	// settings (Timeout).
	Addresses *admin.AddressTemplate
	Client    admin.Config
	// Requests counts admin calls by operation and result; nil counts nothing.
	Requests *prometheus.CounterVec
	// Clock times drains; PollInterval is how often a drain is polled.
	Clock        clock.PassiveClock
	PollInterval time.Duration
	// Hooks returns the tracer and read hook in force; nil traces nothing.
	Hooks func() trace.Hooks
}

// Admin is the brokers' view of every cluster, kept across reconciles: one admin client per
// cluster, and how each cluster's drain has gone so far. Its methods read what the admin API
// says and make the admin calls; each takes the BrokerCluster it is about.
type Admin struct {
	cfg     Config
	clients *adminClients
	drains  *drainTracker
	// recoveries times each cluster's restarted broker until it has reclaimed its load.
	recoveries *recoveryTracker
	// sources is where each cluster's last fresh fact check read its membership (authority.go).
	sources *sourceTracker
	// superusers keeps each cluster's superuser password that last worked (superuser_creds.go).
	superusers *superuserTracker
}

// New returns the brokers' view.
func New(cfg Config) *Admin {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	return &Admin{
		cfg:        cfg,
		clients:    &adminClients{template: cfg.Addresses, config: cfg.Client, clients: map[string]cachedAdminClient{}, requests: cfg.Requests},
		drains:     &drainTracker{drains: map[string]*drainProgress{}},
		recoveries: &recoveryTracker{since: map[string]recoveryWait{}},
		sources:    &sourceTracker{sources: map[string]string{}},
		superusers: &superuserTracker{},
	}
}

// Forget drops what is kept of the cluster namespace/name, once it is gone.
func (a *Admin) Forget(key string) {
	a.clients.forget(key)
	a.drains.forget(key)
	a.recoveries.forget(key)
	a.sources.forget(key)
	a.superusers.forget(key)
}

// Knows reports whether anything is kept for the cluster key (its admin client).
func (a *Admin) Knows(key string) bool {
	a.clients.mu.Lock()
	defer a.clients.mu.Unlock()
	_, ok := a.clients.clients[key]
	return ok
}

// SetTransport sends every admin call through rt from now on, and drops the clients made
// before: for a test that puts an adversary or a recorder between the operator and the brokers.
func (a *Admin) SetTransport(rt http.RoundTripper) {
	a.clients.mu.Lock()
	defer a.clients.mu.Unlock()
	a.clients.config.Transport = rt
	clear(a.clients.clients)
}

// hooks are the tracer and read hook in force.
func (a *Admin) hooks() trace.Hooks {
	if a.cfg.Hooks == nil {
		return trace.Hooks{}
	}
	return a.cfg.Hooks()
}
