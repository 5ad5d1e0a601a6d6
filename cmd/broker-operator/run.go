package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/pkg/evictionwebhook"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	brokerscheme "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/scheme"
	"github.com/broker-operator/broker-operator/pkg/topics"
	"github.com/broker-operator/broker-operator/pkg/users"
)

func init() {
	// Events about BrokerClusters need the type in the scheme the recorder uses.
	utilruntime.Must(brokerscheme.AddToScheme(scheme.Scheme))
}

// errLeadershipLost ends the process so that its Deployment restarts it as a fresh candidate.
var errLeadershipLost = errors.New("leader election lost")

// clients are the API clients the operator runs with; tests pass fakes.
type clients struct {
	kube   kubernetes.Interface
	broker versioned.Interface
	// dynamic serves cert-manager's Certificates; nil in tests that make none.
	dynamic dynamic.Interface
	// metadata watches the Secrets' metadata for the BrokerUser controller; nil in tests, where
	// a changed Secret is found by the resync.
	metadata metadata.Interface
}

// operator is one run of the operator process: its controller, endpoints and, optionally, its
// place in leader election.
type operator struct {
	opts     *options
	clients  clients
	identity string
	registry *prometheus.Registry

	ctrl *controller.Controller
	// topics is the BrokerTopic controller; nil with --enable-topics=false.
	topics *topics.Controller
	// users is the BrokerUser controller; nil with --enable-users=false.
	users   *users.Controller
	leading atomic.Bool

	// ready is closed once the endpoints listen; tests use it to know where to probe.
	ready    chan struct{}
	health   *endpoint
	metrics  *endpoint
	eviction *endpoint
}

func newOperator(opts *options, c clients, identity string) (*operator, error) {
	strategy, err := controller.ParseReadStrategy(opts.readStrategy)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	// go_gc_heap_live_bytes (the heap the last collection kept) beside the default Go metrics:
	// unlike go_memstats_heap_alloc_bytes it does not swing with the collector's cycle, so it is
	// what memory per cluster is read from.
	liveHeap := collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/gc/heap/live:bytes$`)}
	reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(liveHeap)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	registerWorkqueueMetrics(reg)
	registerLeaderMetrics(reg)

	broadcaster := record.NewBroadcaster(record.WithCorrelatorOptions(eventCorrelatorOptions()))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.kube.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "broker-operator"})

	var tracer controller.Tracer
	if klog.V(4).Enabled() {
		tracer = controller.LogTracer() // each read and irreversible call logged: the soak checks them
	}
	ctrl, err := controller.NewController(controller.Config{
		KubeClient:               c.kube,
		BrokerClient:             c.broker,
		DynamicClient:            c.dynamic,
		Namespaces:               opts.namespaces,
		AdminAddressTemplate:     opts.adminAddressTemplate,
		ClusterDomain:            opts.clusterDomain,
		AdminTimeout:             opts.adminTimeout,
		AdminDeadline:            opts.adminDeadline,
		DrainPollInterval:        opts.drainPollInterval,
		CertificateCheckInterval: opts.certificateCheckInterval,
		MaxRetryDelay:            opts.maxRetryDelay,
		Guards:                   controller.DefaultGuards(),
		WritebackTTL:             opts.writebackTTL,
		Recorder:                 recorder,
		Registerer:               reg,
		Tracer:                   tracer,
	}.WithReadStrategy(strategy))
	if err != nil {
		return nil, err
	}
	o := &operator{
		opts:     opts,
		clients:  c,
		identity: identity,
		registry: reg,
		ctrl:     ctrl,
		ready:    make(chan struct{}),
	}
	if opts.enableTopics {
		o.topics, err = topics.NewController(topics.Config{
			KubeClient:      c.kube,
			BrokerClient:    c.broker,
			Namespaces:      opts.namespaces,
			AddressTemplate: opts.kafkaAddressTemplate,
			ClusterDomain:   opts.clusterDomain,
			Recorder:        recorder,
			MaxRetryDelay:   opts.maxRetryDelay,
			SweepInterval:   opts.topicSweepInterval,
			WritebackTTL:    opts.writebackTTL,
		})
		if err != nil {
			return nil, err
		}
	}
	if opts.enableUsers {
		o.users, err = users.NewController(users.Config{
			KubeClient:           c.kube,
			BrokerClient:         c.broker,
			MetadataClient:       c.metadata,
			Namespaces:           opts.namespaces,
			AdminAddressTemplate: opts.adminAddressTemplate,
			AdminTimeout:         opts.adminTimeout,
			KafkaAddressTemplate: opts.kafkaAddressTemplate,
			ClusterDomain:        opts.clusterDomain,
			Recorder:             recorder,
			MaxRetryDelay:        opts.maxRetryDelay,
			ResyncInterval:       opts.userResyncInterval,
			WritebackTTL:         opts.writebackTTL,
		})
		if err != nil {
			return nil, err
		}
	}
	return o, nil
}

// run serves the endpoints and runs the controller, behind leader election when it is on, until
// ctx ends (SIGTERM) or leadership is lost.
func (o *operator) run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	elector, err := o.newElector(ctx)
	if err != nil {
		return err
	}

	healthz := map[string]check{"ping": func(*http.Request) error { return nil }}
	if elector != nil {
		healthz["leader-election"] = func(*http.Request) error { return elector.watchdog.Check(nil) }
	}
	readyz := map[string]check{"informers-synced": o.readyCheck}
	if o.health, err = listen("health", o.opts.healthProbeBindAddr, healthMux(healthz, readyz)); err != nil {
		return err
	}
	if o.metrics, err = listen("metrics", o.opts.metricsBindAddress, metricsMux(o.registry, o.opts.profiling)); err != nil {
		o.health.shutdown(ctx)
		return err
	}
	if o.eviction, err = o.listenEvictionWebhook(ctx); err != nil {
		o.health.shutdown(ctx)
		o.metrics.shutdown(ctx)
		return err
	}
	go o.health.serve(logger)
	go o.metrics.serve(logger)
	go o.eviction.serve(logger)
	close(o.ready)
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		o.health.shutdown(shutdownCtx)
		o.metrics.shutdown(shutdownCtx)
		o.eviction.shutdown(shutdownCtx)
	}()

	if elector == nil {
		o.leading.Store(true)
		return o.runController(ctx)
	}
	return elector.run(ctx)
}

// listenEvictionWebhook binds the eviction webhook, over TLS, when it is on. Every replica
// serves it, leader or not: it only marks a pod for the leader's rollout.
func (o *operator) listenEvictionWebhook(ctx context.Context) (*endpoint, error) {
	if o.opts.evictionWebhookBindAddr == "0" {
		return nil, nil
	}
	tc, err := evictionwebhook.ServingTLS(o.opts.evictionWebhookCertDir)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(evictionwebhook.Path, evictionwebhook.Handler{Kube: o.clients.kube})
	e, err := listen("eviction-webhook", o.opts.evictionWebhookBindAddr, mux)
	if err != nil {
		return nil, err
	}
	e.listener = tls.NewListener(e.listener, tc)
	e.server.BaseContext = func(net.Listener) context.Context { return ctx }
	return e, nil
}

// readyCheck: a leader is ready once its informers have synced; a standby is ready as it is, so
// that a rollout does not wait on a replica that is correctly idle.
func (o *operator) readyCheck(*http.Request) error {
	if o.leading.Load() && (!o.ctrl.HasSynced() || o.topics != nil && !o.topics.HasSynced() || o.users != nil && !o.users.HasSynced()) {
		return errors.New("informer caches have not synced yet")
	}
	return nil
}

// runController runs the controllers until ctx ends, then gives in-flight reconciles
// --shutdown-timeout to finish. A controller that stops early stops the others.
func (o *operator) runController(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	runs := []func(context.Context) error{func(ctx context.Context) error { return o.ctrl.Run(ctx, o.opts.workers) }}
	if o.topics != nil {
		runs = append(runs, func(ctx context.Context) error { return o.topics.Run(ctx, o.opts.topicWorkers) })
	}
	if o.users != nil {
		runs = append(runs, func(ctx context.Context) error { return o.users.Run(ctx, o.opts.userWorkers) })
	}
	done := make(chan error, len(runs))
	for _, run := range runs {
		go func() { done <- run(ctx) }()
	}
	var errs []error
	select {
	case err := <-done:
		errs = append(errs, err)
		cancel()
	case <-ctx.Done():
	}
	timer := time.NewTimer(o.opts.shutdownTimeout)
	defer timer.Stop()
	for len(errs) < len(runs) {
		select {
		case err := <-done:
			errs = append(errs, err)
		case <-timer.C:
			return fmt.Errorf("reconciles still running after --shutdown-timeout %s; exiting anyway", o.opts.shutdownTimeout)
		}
	}
	return errors.Join(errs...)
}

func identity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	return fmt.Sprintf("%s_%d", host, time.Now().UnixNano()), nil
}
