//go:build e2e

package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/race"
)

// The controller against a real kube-apiserver, with its watch delayed by 10-30 ms as a busy
// apiserver or network delays it: without the write-back store the step after a write reads the
// informer's older copy and repeats; with it, never.
func TestCounterOnRealAPIServer(t *testing.T) {
	const (
		configMaps = 4
		target     = 15
	)
	cp := framework.StartForTest(t, framework.Options{})
	admin := kubernetes.NewForConfigOrDie(cp.AdminConfig())

	for _, writeBack := range []bool{false, true} {
		t.Run(fmt.Sprintf("writeback=%v", writeBack), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			ns := fmt.Sprintf("counter-writeback-%v", writeBack)
			if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}

			cfg := cp.AdminConfig()
			cfg.WrapTransport = race.NewRecorder(race.RecorderOptions{Lag: harness.Lag{Min: 10 * time.Millisecond, Max: 30 * time.Millisecond}, Seed: 1}).Wrap
			client := kubernetes.NewForConfigOrDie(cfg)
			factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
			c, err := NewController(client, factory.Core().V1().ConfigMaps(), writeBack)
			if err != nil {
				t.Fatal(err)
			}
			runCtx, stop := context.WithCancel(ctx)
			factory.Start(runCtx.Done())
			done := make(chan error, 1)
			go func() { done <- c.Run(runCtx, 2) }()
			// Stopped before Stats is read: a step's write can reach the apiserver a moment
			// before the controller counts it, and Run returns once every step is counted.
			stopController := sync.OnceFunc(func() {
				stop()
				<-done
				factory.Shutdown()
			})
			defer stopController()

			for i := range configMaps {
				if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
					Name:        fmt.Sprintf("tally-%d", i),
					Annotations: map[string]string{TargetAnnotation: strconv.Itoa(target)},
				}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
				list, err := admin.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
				if err != nil {
					return false, err
				}
				counted := 0
				for _, cm := range list.Items {
					if cm.Annotations[CountAnnotation] == strconv.Itoa(target) {
						counted++
					}
				}
				return counted == configMaps, nil
			})
			if err != nil {
				t.Fatalf("the ConfigMaps did not reach %d: %v (stats %+v)", target, err, c.Stats())
			}

			stopController()
			s := c.Stats()
			t.Logf("writeback=%v: %d steps for %d needed, %d stale reads", writeBack, s.Steps, configMaps*target, s.StaleReads)
			if writeBack {
				if s.StaleReads != 0 || s.Steps != configMaps*target {
					t.Fatalf("with the write-back store: %d stale reads and %d steps, want 0 and exactly %d", s.StaleReads, s.Steps, configMaps*target)
				}
				return
			}
			if s.StaleReads == 0 || s.Steps <= configMaps*target {
				t.Fatalf("without the write-back store: %d stale reads and %d steps; the delayed watch should have made it repeat steps", s.StaleReads, s.Steps)
			}
		})
	}
}
