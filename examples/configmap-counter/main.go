// Command configmap-counter is a minimal client-go controller, in the style of
// k8s.io/sample-controller, that shows how to adopt pkg/writeback. It counts each ConfigMap
// annotated with configmap-counter.example.dev/target=N up to N, one step per reconcile, and
// writes the count into configmap-counter.example.dev/count. Every step depends on reading the
// previous step's write.
//
// Without the write-back store (-writeback=false) the reconcile that follows a write often
// reads the informer's older copy, and repeats a step; the controller logs each such stale
// read at -v=2 and prints the totals when it stops. With it (the default) it never does.
//
//	go run ./examples/configmap-counter -kubeconfig ~/.kube/config -namespace default
//	kubectl annotate configmap my-config configmap-counter.example.dev/target=20
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

func main() {
	klog.InitFlags(nil)
	kubeconfig := flag.String("kubeconfig", "", "path to a kubeconfig; empty: in-cluster")
	namespace := flag.String("namespace", "default", "the namespace whose ConfigMaps are counted")
	writeBack := flag.Bool("writeback", true, "read through the write-back store, so each reconcile sees the controller's own last write")
	workers := flag.Int("workers", 2, "ConfigMaps counted at once")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *namespace, *writeBack, *workers); err != nil {
		klog.ErrorS(err, "configmap-counter failed")
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, namespace string, writeBack bool, workers int) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
	c, err := NewController(client, factory.Core().V1().ConfigMaps(), writeBack)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	err = c.Run(ctx, workers)
	s := c.Stats()
	fmt.Printf("steps: %d, stale reads: %d (writeback=%v)\n", s.Steps, s.StaleReads, writeBack)
	return err
}
