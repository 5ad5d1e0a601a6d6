package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// elector runs the controller only while this process holds the Lease.
type elector struct {
	op       *operator
	config   leaderelection.LeaderElectionConfig
	watchdog *leaderelection.HealthzAdaptor
}

func (o *operator) newElector(ctx context.Context) (*elector, error) {
	if !o.opts.leaderElect {
		return nil, nil
	}
	ns := o.opts.leaseNamespace
	if ns == "" {
		ns = os.Getenv("POD_NAMESPACE")
	}
	if ns == "" {
		return nil, errors.New("leader election needs a namespace for its Lease: set --leader-elect-lease-namespace or POD_NAMESPACE")
	}
	// The watchdog fails /healthz when the leader has not renewed for a while, so a wedged leader is
	// restarted and a standby takes over.
	watchdog := leaderelection.NewLeaderHealthzAdaptor(o.opts.leaseDuration)
	standBy(electionName)
	return &elector{
		op:       o,
		watchdog: watchdog,
		config: leaderelection.LeaderElectionConfig{
			Lock: &resourcelock.LeaseLock{
				LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: o.opts.leaseName},
				Client:     o.clients.kube.CoordinationV1(),
				LockConfig: resourcelock.ResourceLockConfig{Identity: o.identity},
			},
			LeaseDuration:   o.opts.leaseDuration,
			RenewDeadline:   o.opts.leaseRenewDeadline,
			RetryPeriod:     o.opts.leaseRetryPeriod,
			ReleaseOnCancel: true,
			WatchDog:        watchdog,
			Name:            electionName,
		},
	}, nil
}

// run campaigns for the Lease and runs the controller while leading. It returns nil after a clean
// shutdown (ctx ended), or errLeadershipLost.
//
// The Lease is released only after the controller has stopped: the elector's own context is
// detached from ctx and cancelled once the reconciles are done, so a standby never starts while
// this process still writes.
func (e *elector) run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	electionCtx, release := context.WithCancel(context.WithoutCancel(ctx))
	defer release()

	var (
		started     atomic.Bool
		lost        atomic.Bool
		ctrlErr     error
		ctrlStopped = make(chan struct{})
	)
	cfg := e.config
	cfg.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: func(leadingCtx context.Context) {
			started.Store(true)
			e.op.leading.Store(true)
			logger.Info("Started leading", "identity", e.op.identity)
			runCtx, cancel := context.WithCancel(leadingCtx)
			stop := context.AfterFunc(ctx, cancel)
			ctrlErr = e.op.runController(runCtx)
			stop()
			cancel()
			close(ctrlStopped)
			release()
		},
		OnStoppedLeading: func() {
			e.op.leading.Store(false)
			if ctx.Err() == nil {
				lost.Store(true)
			}
		},
		OnNewLeader: func(identity string) {
			if identity != e.op.identity {
				logger.Info("Another replica leads; standing by", "leader", identity)
			}
		},
	}
	le, err := leaderelection.NewLeaderElector(cfg)
	if err != nil {
		return err
	}
	// A standby stops campaigning as soon as ctx ends; a leader's release waits for its controller.
	stopCampaign := context.AfterFunc(ctx, func() {
		if !started.Load() {
			release()
		}
	})
	defer stopCampaign()

	le.Run(electionCtx)

	if !started.Load() {
		return nil
	}
	select {
	case <-ctrlStopped:
	case <-time.After(e.op.opts.shutdownTimeout):
		return fmt.Errorf("reconciles still running %s after leading ended; exiting anyway", e.op.opts.shutdownTimeout)
	}
	if lost.Load() {
		return errLeadershipLost
	}
	return ctrlErr
}
