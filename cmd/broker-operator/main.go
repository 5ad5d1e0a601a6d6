// Command broker-operator runs the BrokerCluster controller: it scales broker clusters and
// decommissions each broker through the brokers' admin API before its pod goes away.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/internal/version"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
)

func main() {
	os.Exit(realMain(os.Args[1:]))
}

func realMain(args []string) int {
	opts := defaultOptions()
	fs := flag.NewFlagSet("broker-operator", flag.ContinueOnError)
	klog.InitFlags(fs)
	opts.addFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: broker-operator [flags]\n\n"+
			"Runs the BrokerCluster controller. Flags (the -v, -vmodule and other logging flags are klog's):\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if opts.showVersion {
		fmt.Println(version.String())
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "broker-operator: unexpected arguments: %v\n", fs.Args())
		return 2
	}
	if err := opts.validate(); err != nil {
		fmt.Fprintf(os.Stderr, "broker-operator: invalid flags:\n%v\n", err)
		return 2
	}
	defer klog.Flush()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	logger := klog.Background()
	ctx = klog.NewContext(ctx, logger)
	logger.Info("Starting", "version", version.String())
	if err := installFeatureGates(logger); err != nil {
		logger.Error(err, "Exiting")
		return 1
	}

	if err := start(ctx, opts); err != nil {
		logger.Error(err, "Exiting")
		return 1
	}
	logger.Info("Stopped cleanly")
	return 0
}

func start(ctx context.Context, opts *options) error {
	cfg, err := restConfig(opts.kubeconfig)
	if err != nil {
		return err
	}
	cfg.UserAgent = "broker-operator/" + version.Version
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	broker, err := versioned.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		return err
	}
	id, err := identity()
	if err != nil {
		return err
	}
	op, err := newOperator(opts, clients{kube: kube, broker: broker, dynamic: dyn, metadata: meta}, id)
	if err != nil {
		return err
	}
	return op.run(ctx)
}

// restConfig loads --kubeconfig, or the in-cluster config when it is empty. Its rate limits suit
// an operator that reconciles many clusters: client-go's defaults (5 QPS) would throttle it.
func restConfig(kubeconfig string) (*rest.Config, error) {
	var (
		cfg *rest.Config
		err error
	)
	if kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes client config (set --kubeconfig outside a cluster): %w", err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	return cfg, nil
}
