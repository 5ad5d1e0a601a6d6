package controller

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
)

// Defaults applied by NewController to zero Config fields.
const (
	// DefaultAdminTimeout is at least what Redpanda itself may take to answer a decommission:
	// node_management_operation_timeout_ms (5 s) plus forwarding to the controller leader.
	DefaultAdminTimeout = admin.DefaultTimeout
	// DefaultAdminDeadline bounds all the admin calls of one reconcile together.
	DefaultAdminDeadline     = 30 * time.Second
	DefaultDrainPollInterval = 10 * time.Second
	// DefaultMaxRetryDelay caps how long a failed reconcile waits for its retry. client-go's
	// default, 1000 s, suits apiserver errors; the admin API's recovery cannot be watched, and
	// a few seconds of fast failures (a broker answering 503 while its health report is
	// missing) would otherwise push the next look minutes past the recovery.
	DefaultMaxRetryDelay = 30 * time.Second
	// DefaultCertificateCheckInterval is how often the listeners' certificate Secrets of a
	// cluster are read again when nothing else brings a reconcile: cert-manager renews a
	// certificate weeks before it expires, and the expiry metric need not follow it closer.
	DefaultCertificateCheckInterval = 5 * time.Minute
)

// Config is what NewController needs. KubeClient and BrokerClient are required; every other
// field has a default.
type Config struct {
	// KubeClient reads and writes StatefulSets, Services, PodDisruptionBudgets and Pods.
	KubeClient kubernetes.Interface
	// BrokerClient reads and writes BrokerClusters.
	BrokerClient versioned.Interface
	// DynamicClient reads and writes cert-manager Certificates (certificates.go), so that
	// cert-manager's Go module is not needed. Nil: a listener with an issuerRef waits, with the
	// CertificatesReady condition saying why.
	DynamicClient dynamic.Interface
	// Namespaces to watch; empty means all. Each gets its own informers; a key from any other
	// namespace is ignored.
	Namespaces []string

	// AdminAddressTemplate renders each broker's admin API base URL (see
	// admin.ParseAddressTemplate). Empty means admin.DefaultAddressTemplate, the in-cluster DNS
	// name of the headless Service's pods.
	AdminAddressTemplate string
	// ClusterDomain is the Kubernetes cluster's DNS domain, the suffix of every broker's stable
	// name: its advertised addresses, seeds, certificate names and admin address. Empty means
	// admin.DefaultClusterDomain. A change renames every broker, so restarts them all.
	ClusterDomain string
	// AdminTimeout bounds each admin API request to one broker. Zero means DefaultAdminTimeout.
	AdminTimeout time.Duration
	// AdminDeadline bounds all the admin API calls of one reconcile together, so that brokers
	// that time out one after another cannot hold a worker for long. Zero means
	// DefaultAdminDeadline; it must not be shorter than AdminTimeout.
	AdminDeadline time.Duration

	// readStrategy says where a reconcile reads the BrokerCluster, StatefulSet and Pods from;
	// set only through WithReadStrategy. The zero value is ReadWriteback.
	readStrategy ReadStrategy
	// Guards are the checks that stand behind the write-back cache. The zero value turns both
	// on; turn one off only for experiments.
	Guards Guards
	// WritebackTTL is how long an overlay entry may wait for its informer before the watch is
	// reported as stalled (writeback.Options.TTL); the entry is still served. Zero: the package
	// default.
	WritebackTTL time.Duration

	// Recorder receives an event for each decision. Nil: events are dropped.
	Recorder record.EventRecorder
	// Registerer receives the controller's and the overlays' metrics. Nil: not registered.
	Registerer prometheus.Registerer
	// Clock drives the workqueue's delays, the overlays' TTL and condition timestamps. Nil: the
	// real clock.
	Clock clock.WithTicker
	// DrainPollInterval is how long to wait before looking at a draining broker again. Zero
	// means DefaultDrainPollInterval.
	DrainPollInterval time.Duration
	// CertificateCheckInterval is how often a cluster with TLS listeners is reconciled to read
	// its certificate Secrets again for the expiry metric (certificates.go). Zero means
	// DefaultCertificateCheckInterval.
	CertificateCheckInterval time.Duration
	// MaxRetryDelay is the longest a failed reconcile (an admin API that did not answer, a
	// write that failed) waits before its retry; the delay doubles from 5 ms up to it. Zero
	// means DefaultMaxRetryDelay.
	MaxRetryDelay time.Duration
	// ReadHook, when set, is called with the resource ("brokerclusters" or "statefulsets"),
	// namespace, name and resourceVersion ("" when absent) of each BrokerCluster and
	// StatefulSet read at the start of a reconcile, so an experiment can count stale reads. It
	// runs on the worker's goroutine and must be quick and safe for concurrent use.
	ReadHook func(resource, namespace, name, resourceVersion string)
	// Tracer, when set, is told of each reconcile, its reads of the BrokerCluster and the
	// StatefulSet, and its irreversible calls, so that an experiment can record a history.
	// Nil: nothing is traced.
	Tracer Tracer
}

// WithReadStrategy returns cfg reading with s instead of through the write-back overlays. It is
// the seam for experiments that measure the stale reads the overlays remove (test/race, the
// soak's scale run): ReadCache and ReadUncached are the seed's bugs and its option A, never
// what a production controller should run.
func (cfg Config) WithReadStrategy(s ReadStrategy) Config {
	cfg.readStrategy = s
	return cfg
}

// Guards are the second wall behind the write-back cache. Both are on unless turned off; the
// zero value is the safe one.
type Guards struct {
	// SkipAdminCheck turns off the admin check: before starting a decommission, the operator
	// asks the admin API whether the broker is still an active member. A broker that has left
	// is not decommissioned again; a draining one is adopted without a second decommission
	// call. The seed's option D.
	SkipAdminCheck bool
	// SkipPrecondition turns off the precondition: the status writes the step table marks
	// (those that start, skip or record a decommission or a restart) carry the BrokerCluster's
	// resourceVersion, so a decision made on a stale copy gets a Conflict. The seed's option C.
	SkipPrecondition bool
}

// DefaultGuards turns both guards on; it is the zero value.
func DefaultGuards() Guards { return Guards{} }

// withDefaults validates the configuration and fills in defaults.
func (cfg Config) withDefaults() (Config, error) {
	var errs []error
	if cfg.KubeClient == nil {
		errs = append(errs, errors.New("KubeClient is required"))
	}
	if cfg.BrokerClient == nil {
		errs = append(errs, errors.New("BrokerClient is required"))
	}
	seen := map[string]bool{}
	for _, ns := range cfg.Namespaces {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("namespace %q: %v", ns, msgs))
		}
		if seen[ns] {
			errs = append(errs, fmt.Errorf("namespace %q listed twice", ns))
		}
		seen[ns] = true
	}
	if cfg.AdminAddressTemplate == "" {
		cfg.AdminAddressTemplate = admin.DefaultAddressTemplate
	}
	if cfg.ClusterDomain == "" {
		cfg.ClusterDomain = admin.DefaultClusterDomain
	}
	if err := admin.ValidateClusterDomain(cfg.ClusterDomain); err != nil {
		errs = append(errs, fmt.Errorf("ClusterDomain: %w", err))
	} else if _, err := admin.ParseAddressTemplate(cfg.AdminAddressTemplate, cfg.ClusterDomain); err != nil {
		errs = append(errs, fmt.Errorf("AdminAddressTemplate: %w", err))
	}
	if cfg.AdminTimeout < 0 {
		errs = append(errs, fmt.Errorf("AdminTimeout %v is negative", cfg.AdminTimeout))
	} else if cfg.AdminTimeout == 0 {
		cfg.AdminTimeout = DefaultAdminTimeout
	}
	if cfg.AdminDeadline < 0 {
		errs = append(errs, fmt.Errorf("AdminDeadline %v is negative", cfg.AdminDeadline))
	} else if cfg.AdminDeadline == 0 {
		cfg.AdminDeadline = max(DefaultAdminDeadline, cfg.AdminTimeout)
	} else if cfg.AdminDeadline < cfg.AdminTimeout {
		errs = append(errs, fmt.Errorf("AdminDeadline %v is shorter than AdminTimeout %v", cfg.AdminDeadline, cfg.AdminTimeout))
	}
	if !cfg.readStrategy.valid() {
		errs = append(errs, fmt.Errorf("ReadStrategy %d is not one of %v", int(cfg.readStrategy), readStrategyNames))
	}
	if cfg.WritebackTTL < 0 {
		errs = append(errs, fmt.Errorf("WritebackTTL %v is negative", cfg.WritebackTTL))
	}
	if cfg.DrainPollInterval < 0 {
		errs = append(errs, fmt.Errorf("DrainPollInterval %v is negative", cfg.DrainPollInterval))
	} else if cfg.DrainPollInterval == 0 {
		cfg.DrainPollInterval = DefaultDrainPollInterval
	}
	if cfg.CertificateCheckInterval < 0 {
		errs = append(errs, fmt.Errorf("CertificateCheckInterval %v is negative", cfg.CertificateCheckInterval))
	} else if cfg.CertificateCheckInterval == 0 {
		cfg.CertificateCheckInterval = DefaultCertificateCheckInterval
	}
	if cfg.MaxRetryDelay < 0 {
		errs = append(errs, fmt.Errorf("MaxRetryDelay %v is negative", cfg.MaxRetryDelay))
	} else if cfg.MaxRetryDelay == 0 {
		cfg.MaxRetryDelay = DefaultMaxRetryDelay
	}
	if cfg.Recorder == nil {
		cfg.Recorder = &record.FakeRecorder{} // with no channel it drops every event
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if len(errs) > 0 {
		return cfg, fmt.Errorf("controller: invalid config: %w", errors.Join(errs...))
	}
	return cfg, nil
}
