package framework_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/test/framework"
)

// A program (a local run, say) starts the control plane, uses it and stops it.
func ExampleStart() {
	ctx := context.Background()
	cp, err := framework.Start(ctx, framework.Options{Logf: func(f string, a ...any) { fmt.Printf(f+"\n", a...) }})
	if err != nil {
		fmt.Println(err) // names hack/controlplane/build.sh when the binaries are missing
		return
	}
	defer cp.Stop()
	fmt.Printf("KUBECONFIG=%s kubectl get nodes\n", cp.KubeconfigPath)

	client := kubernetes.NewForConfigOrDie(cp.AdminConfig())
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "example.invalid/app:1"}}}
	framework.PlaceOnFakeNode(&spec) // or the Pod stays Pending: the only Node is tainted
	_, err = client.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app"}, Spec: spec}, metav1.CreateOptions{})
	fmt.Println(err)
}

// A test package can share one control plane between its tests, and keep the logs if any failed.
func ExampleStart_testMain() {
	var m *testing.M // the argument of TestMain
	cp, err := framework.Start(context.Background(), framework.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if code != 0 {
		cp.StopKeepingLogs()
		fmt.Fprintln(os.Stderr, "control plane logs kept in", cp.LogDir)
	} else {
		cp.Stop()
	}
	os.Exit(code)
}

// The operator runs as its ServiceAccount, with only the permissions its RBAC grants.
func ExampleControlPlane_ServiceAccountConfig() {
	var cp *framework.ControlPlane // from Start or StartForTest
	ctx := context.Background()
	cfg, err := cp.ServiceAccountConfig(ctx, "broker-system", "broker-operator")
	if err != nil {
		fmt.Println(err) // the ServiceAccount must exist
		return
	}
	_ = kubernetes.NewForConfigOrDie(cfg) // requests it may not make come back Forbidden
}
