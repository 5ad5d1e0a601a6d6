// Command up starts the local control plane and keeps it running until interrupted, for poking
// at it with kubectl:
//
//	hack/controlplane/build.sh && go run ./hack/controlplane/up
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/broker-operator/broker-operator/test/framework"
)

func main() {
	binDir := flag.String("bin-dir", "", "directory of the control plane binaries (default: $"+framework.BinDirEnv+" or _output/bin)")
	keepLogs := flag.Bool("keep-logs", false, "keep the component logs after stopping")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	cp, err := framework.Start(ctx, framework.Options{BinDir: *binDir, Logf: logf})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("\nThe control plane is up. In another terminal:\n  export KUBECONFIG=%s\n  kubectl get nodes\nPods need the fake node's toleration (key %q, value %q, effect NoSchedule).\nCtrl-C stops it.\n",
		cp.KubeconfigPath, framework.FakeNodeTolerations()[0].Key, framework.FakeNodeTolerations()[0].Value)
	<-ctx.Done()

	fmt.Fprintln(os.Stderr, "stopping...")
	if *keepLogs {
		err = cp.StopKeepingLogs()
		fmt.Fprintln(os.Stderr, "logs kept in", cp.LogDir)
	} else {
		err = cp.Stop()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
