package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/pkg/topics"
	"github.com/broker-operator/broker-operator/pkg/users"
)

// options are the operator's command-line settings.
type options struct {
	kubeconfig string
	namespaces stringList
	workers    int

	leaderElect              bool
	leaseName                string
	leaseNamespace           string
	leaseDuration            time.Duration
	leaseRenewDeadline       time.Duration
	leaseRetryPeriod         time.Duration
	metricsBindAddress       string
	healthProbeBindAddr      string
	profiling                bool
	adminAddressTemplate     string
	kafkaAddressTemplate     string
	clusterDomain            string
	adminTimeout             time.Duration
	adminDeadline            time.Duration
	drainPollInterval        time.Duration
	certificateCheckInterval time.Duration
	maxRetryDelay            time.Duration
	readStrategy             string
	writebackTTL             time.Duration
	shutdownTimeout          time.Duration
	showVersion              bool

	evictionWebhookBindAddr string
	evictionWebhookCertDir  string

	enableTopics       bool
	topicWorkers       int
	topicSweepInterval time.Duration

	enableUsers        bool
	userWorkers        int
	userResyncInterval time.Duration
}

func defaultOptions() *options {
	return &options{
		workers:                  2,
		leaderElect:              true,
		leaseName:                "broker-operator",
		leaseDuration:            15 * time.Second,
		leaseRenewDeadline:       10 * time.Second,
		leaseRetryPeriod:         2 * time.Second,
		metricsBindAddress:       ":8080",
		healthProbeBindAddr:      ":8081",
		adminAddressTemplate:     admin.DefaultAddressTemplate,
		kafkaAddressTemplate:     topics.DefaultAddressTemplate,
		clusterDomain:            admin.DefaultClusterDomain,
		adminTimeout:             10 * time.Second,
		adminDeadline:            controller.DefaultAdminDeadline,
		drainPollInterval:        controller.DefaultDrainPollInterval,
		certificateCheckInterval: controller.DefaultCertificateCheckInterval,
		maxRetryDelay:            controller.DefaultMaxRetryDelay,
		readStrategy:             controller.ReadWriteback.String(),
		writebackTTL:             5 * time.Minute,
		shutdownTimeout:          30 * time.Second,

		evictionWebhookBindAddr: "0",

		enableTopics:       true,
		topicWorkers:       2,
		topicSweepInterval: topics.DefaultSweepInterval,

		enableUsers:        true,
		userWorkers:        2,
		userResyncInterval: users.DefaultResyncInterval,
	}
}

func (o *options) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.kubeconfig, "kubeconfig", o.kubeconfig,
		"Path to a kubeconfig. Empty: the in-cluster config.")
	fs.Var(&o.namespaces, "namespace",
		"Namespace to watch. Repeat the flag for several; none means all namespaces.")
	fs.IntVar(&o.workers, "workers", o.workers,
		"Number of BrokerClusters reconciled at once.")
	fs.BoolVar(&o.leaderElect, "leader-elect", o.leaderElect,
		"Elect a leader through a coordination.k8s.io Lease, so that only one replica reconciles.")
	fs.StringVar(&o.leaseName, "leader-elect-lease-name", o.leaseName,
		"Name of the leader election Lease.")
	fs.StringVar(&o.leaseNamespace, "leader-elect-lease-namespace", o.leaseNamespace,
		"Namespace of the leader election Lease. Empty: the namespace the operator runs in (POD_NAMESPACE).")
	fs.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", o.leaseDuration,
		"How long standbys wait after the last renewal before they take over.")
	fs.DurationVar(&o.leaseRenewDeadline, "leader-elect-renew-deadline", o.leaseRenewDeadline,
		"How long the leader keeps trying to renew before it gives up leadership.")
	fs.DurationVar(&o.leaseRetryPeriod, "leader-elect-retry-period", o.leaseRetryPeriod,
		"How often candidates try to acquire or renew the Lease.")
	fs.StringVar(&o.metricsBindAddress, "metrics-bind-address", o.metricsBindAddress,
		"Address of the Prometheus /metrics endpoint. \"0\" turns it off.")
	fs.BoolVar(&o.profiling, "profiling", o.profiling,
		"Serve Go's pprof profiles under /debug/pprof/ on the metrics endpoint. Off by default: that endpoint has no authentication.")
	fs.StringVar(&o.healthProbeBindAddr, "health-probe-bind-address", o.healthProbeBindAddr,
		"Address of the /healthz and /readyz endpoints. \"0\" turns them off.")
	fs.StringVar(&o.adminAddressTemplate, "admin-address-template", o.adminAddressTemplate,
		"Go template of a broker's admin API base URL, scheme://host:port with no path, over .Namespace, .Name, .Ordinal, .Port and .ClusterDomain; add sums integers ({{add .Port .Ordinal}}). The default names each pod's stable DNS name.")
	fs.StringVar(&o.kafkaAddressTemplate, "kafka-address-template", o.kafkaAddressTemplate,
		"Go template of a broker's internal Kafka listener address, host:port, which the BrokerTopic and BrokerUser controllers connect to, over .Namespace, .Name, .Ordinal, .Port (9092) and .ClusterDomain; add sums integers. The default names each pod's stable DNS name; set it when the operator runs where those names do not resolve.")
	fs.StringVar(&o.clusterDomain, "cluster-domain", o.clusterDomain,
		"DNS domain of the Kubernetes cluster (the kubelet's --cluster-domain), the suffix of every broker's stable name: its advertised addresses, seed servers, certificate names and the default admin address (.ClusterDomain). Changing it restarts every broker.")
	fs.DurationVar(&o.adminTimeout, "admin-timeout", o.adminTimeout,
		"Timeout of each admin API request.")
	fs.DurationVar(&o.adminDeadline, "admin-deadline", o.adminDeadline,
		"Time all the admin API requests of one reconcile may take together; at least --admin-timeout.")
	fs.DurationVar(&o.drainPollInterval, "drain-poll-interval", o.drainPollInterval,
		"How often a draining broker is checked on.")
	fs.DurationVar(&o.certificateCheckInterval, "certificate-check-interval", o.certificateCheckInterval,
		"How often the certificate Secrets of a cluster's TLS listeners are read again for broker_operator_certificate_expiry_timestamp_seconds when nothing else brings a reconcile.")
	fs.DurationVar(&o.maxRetryDelay, "max-retry-delay", o.maxRetryDelay,
		"Longest wait before a failed reconcile is retried (an admin API that did not answer, a failed write); the wait doubles from 5ms up to it.")
	fs.StringVar(&o.readStrategy, "read-strategy", o.readStrategy,
		"How reconciles read objects: writeback (see your own writes), cache (plain informer), uncached (live GET). The last two exist for experiments.")
	fs.DurationVar(&o.writebackTTL, "writeback-ttl", o.writebackTTL,
		"How long a write may wait for the informer to catch up before the watch is reported as stalled (an error log and writeback_stalled_entries); the write is still served.")
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", o.shutdownTimeout,
		"How long in-flight reconciles may take to finish after SIGTERM.")
	fs.StringVar(&o.evictionWebhookBindAddr, "eviction-webhook-bind-address", o.evictionWebhookBindAddr,
		"Where the pods/eviction admission webhook listens (HTTPS, path /evictions), which turns a drain's eviction of a broker pod into a restart through the rollout; \"0\" turns it off.")
	fs.StringVar(&o.evictionWebhookCertDir, "eviction-webhook-cert-dir", o.evictionWebhookCertDir,
		"Directory holding the eviction webhook's serving certificate and key, tls.crt and tls.key (read again when they change). Required with --eviction-webhook-bind-address.")
	fs.BoolVar(&o.enableTopics, "enable-topics", o.enableTopics,
		"Run the BrokerTopic controller, which manages Kafka topics through each cluster's internal Kafka listener (docs/topics.md). --enable-topics=false turns it off.")
	fs.IntVar(&o.topicWorkers, "topic-workers", o.topicWorkers,
		"Number of BrokerTopics reconciled at once, with --enable-topics.")
	fs.DurationVar(&o.topicSweepInterval, "topic-sweep-interval", o.topicSweepInterval,
		"How often, with --enable-topics, each cluster's topics are read at once to find a topic changed or deleted outside the operator.")
	fs.BoolVar(&o.enableUsers, "enable-users", o.enableUsers,
		"Run the BrokerUser controller, which manages SCRAM users through each cluster's admin API and their ACLs through its internal Kafka listener, and watches the Secrets' metadata for a changed password (docs/users.md). --enable-users=false turns it off.")
	fs.IntVar(&o.userWorkers, "user-workers", o.userWorkers,
		"Number of BrokerUsers reconciled at once, with --enable-users.")
	fs.DurationVar(&o.userResyncInterval, "user-resync-interval", o.userResyncInterval,
		"How often, with --enable-users, every BrokerUser is reconciled again, to find a user or ACL changed outside the operator. A changed password Secret is noticed at once through its watch.")
	fs.BoolVar(&o.showVersion, "version", false, "Print the version and exit.")
}

// validate checks every setting and reports all problems at once.
func (o *options) validate() error {
	var errs []error
	if o.workers < 1 {
		errs = append(errs, fmt.Errorf("--workers must be at least 1, got %d", o.workers))
	}
	for _, ns := range o.namespaces {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--namespace %q is not a valid namespace name: %s", ns, strings.Join(msgs, "; ")))
		}
	}
	if o.leaderElect {
		if msgs := validation.IsDNS1123Subdomain(o.leaseName); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--leader-elect-lease-name %q is not a valid name: %s", o.leaseName, strings.Join(msgs, "; ")))
		}
		if o.leaseRetryPeriod <= 0 || o.leaseRenewDeadline <= 0 || o.leaseDuration <= 0 {
			errs = append(errs, errors.New("leader election durations must be positive"))
		} else {
			if o.leaseDuration <= o.leaseRenewDeadline {
				errs = append(errs, fmt.Errorf("--leader-elect-lease-duration (%s) must be greater than --leader-elect-renew-deadline (%s)", o.leaseDuration, o.leaseRenewDeadline))
			}
			if o.leaseRenewDeadline <= o.leaseRetryPeriod {
				errs = append(errs, fmt.Errorf("--leader-elect-renew-deadline (%s) must be greater than --leader-elect-retry-period (%s)", o.leaseRenewDeadline, o.leaseRetryPeriod))
			}
		}
	}
	for flagName, addr := range map[string]string{
		"--metrics-bind-address":          o.metricsBindAddress,
		"--health-probe-bind-address":     o.healthProbeBindAddr,
		"--eviction-webhook-bind-address": o.evictionWebhookBindAddr,
	} {
		if addr == "0" {
			continue
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			errs = append(errs, fmt.Errorf("%s %q: want host:port or \"0\": %v", flagName, addr, err))
		}
	}
	if err := admin.ValidateClusterDomain(o.clusterDomain); err != nil {
		errs = append(errs, fmt.Errorf("--cluster-domain: %v", err))
	} else {
		if _, err := admin.ParseAddressTemplate(o.adminAddressTemplate, o.clusterDomain); err != nil {
			errs = append(errs, fmt.Errorf("--admin-address-template: %v", err))
		}
		if _, err := topics.ParseAddressTemplate(o.kafkaAddressTemplate, o.clusterDomain); err != nil {
			errs = append(errs, fmt.Errorf("--kafka-address-template: %v", err))
		}
	}
	if o.adminTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--admin-timeout must be positive, got %s", o.adminTimeout))
	}
	if o.adminDeadline < o.adminTimeout {
		errs = append(errs, fmt.Errorf("--admin-deadline %s is shorter than --admin-timeout %s", o.adminDeadline, o.adminTimeout))
	}
	if o.maxRetryDelay <= 0 {
		errs = append(errs, fmt.Errorf("--max-retry-delay must be positive, got %s", o.maxRetryDelay))
	}
	if o.drainPollInterval <= 0 {
		errs = append(errs, fmt.Errorf("--drain-poll-interval must be positive, got %s", o.drainPollInterval))
	}
	if o.certificateCheckInterval <= 0 {
		errs = append(errs, fmt.Errorf("--certificate-check-interval must be positive, got %s", o.certificateCheckInterval))
	}
	if _, err := controller.ParseReadStrategy(o.readStrategy); err != nil {
		errs = append(errs, fmt.Errorf("--read-strategy: %v", err))
	}
	if o.writebackTTL <= 0 {
		errs = append(errs, fmt.Errorf("--writeback-ttl must be positive, got %s", o.writebackTTL))
	}
	if o.evictionWebhookBindAddr != "0" && o.evictionWebhookCertDir == "" {
		errs = append(errs, errors.New("--eviction-webhook-bind-address needs --eviction-webhook-cert-dir"))
	}
	if o.topicSweepInterval <= 0 {
		errs = append(errs, fmt.Errorf("--topic-sweep-interval must be positive, got %s", o.topicSweepInterval))
	}
	if o.topicWorkers < 1 {
		errs = append(errs, fmt.Errorf("--topic-workers must be at least 1, got %d", o.topicWorkers))
	}
	if o.userResyncInterval <= 0 {
		errs = append(errs, fmt.Errorf("--user-resync-interval must be positive, got %s", o.userResyncInterval))
	}
	if o.userWorkers < 1 {
		errs = append(errs, fmt.Errorf("--user-workers must be at least 1, got %d", o.userWorkers))
	}
	if o.shutdownTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--shutdown-timeout must be positive, got %s", o.shutdownTimeout))
	}
	return errors.Join(errs...)
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	if v == "" {
		return errors.New("must not be empty")
	}
	*l = append(*l, v)
	return nil
}
