package brokers

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
	"github.com/broker-operator/broker-operator/pkg/controller/trace"
)

// Decommission asks the admin API to drain a broker. A broker that is draining already counts
// as success.
func (a *Admin) Decommission(ctx context.Context, bc *v1alpha1.BrokerCluster, id int32) error {
	client, err := a.Client(ctx, bc)
	if err != nil {
		return err
	}
	start := a.hooks().Start()
	err = client.Decommission(ctx, int(id))
	a.hooks().Call(ctx, trace.Decommission, id, start, err)
	switch {
	case err == nil, errors.Is(err, admin.ErrAlreadyDecommissioned):
		return nil
	case errors.Is(err, admin.ErrBrokerNotFound):
		klog.FromContext(ctx).V(2).Info("Decommissioned a broker that is not a member", "broker", id)
		return nil // gone: the next reconcile finishes
	}
	return fmt.Errorf("decommission broker %d of %s: %w", id, bc.Namespace+"/"+bc.Name, err)
}

// Recommission stops a drain. A broker that is not draining any more is fine; one that has
// left cannot be brought back, and the next reconcile finishes its decommission instead.
func (a *Admin) Recommission(ctx context.Context, bc *v1alpha1.BrokerCluster, id int32) error {
	client, err := a.Client(ctx, bc)
	if err != nil {
		return err
	}
	start := a.hooks().Start()
	err = client.Recommission(ctx, int(id))
	a.hooks().Call(ctx, trace.Recommission, id, start, err)
	if err == nil || errors.Is(err, admin.ErrNotDecommissioning) {
		return nil
	}
	return fmt.Errorf("recommission broker %d of %s: %w", id, bc.Namespace+"/"+bc.Name, err)
}

// Client returns a client for bc's brokers 0 to currentReplicas-1, reading the Secrets its
// spec names.
func (a *Admin) Client(ctx context.Context, bc *v1alpha1.BrokerCluster) (admin.Client, error) {
	sec, err := a.ReadSecurity(ctx, bc)
	if err != nil {
		return nil, err
	}
	client, err := a.clients.forCluster(bc, bc.Status.CurrentReplicas, sec)
	if err != nil {
		return nil, err
	}
	return BoundByDeadline(ctx, client), nil
}

// WaitsOnAdmin reports whether err means the admin API cannot be reached as configured: it did
// not answer, refused the credentials or the TLS handshake, or a Secret it needs is unusable. The cluster is then
// Degraded until that changes; other errors are retried with backoff.
func WaitsOnAdmin(err error) bool {
	var se *secretError
	// DeadlineExceeded: the reconcile's admin deadline passed (the worker's own context has none).
	return errors.Is(err, admin.ErrUnavailable) || errors.Is(err, admin.ErrUnauthorized) || errors.Is(err, admin.ErrForbidden) ||
		errors.Is(err, admin.ErrTLS) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &se)
}

// adminProblem names a Degraded reason and a sentence for an admin error that waitsOnAdmin.
func Problem(err error) (reason, message string) {
	var se *secretError
	switch {
	case errors.As(err, &se):
		return se.Reason, se.Error()
	case errors.Is(err, admin.ErrUnauthorized):
		return step.ReasonAdminAPIUnauthorized, fmt.Sprintf("the brokers' admin API refused the operator's credentials: %v", err)
	case errors.Is(err, admin.ErrForbidden):
		return step.ReasonAdminAPIForbidden, fmt.Sprintf("the brokers' admin API does not let the operator's user make this call (is it a superuser?): %v", err)
	case errors.Is(err, admin.ErrTLS):
		return step.ReasonAdminAPITLSRefused, fmt.Sprintf("the TLS handshake with the brokers' admin API failed: the brokers refused the operator's client certificate (spec.adminAPI.tls tls.crt and tls.key), or their certificate is not signed by the CA in ca.crt: %v", err)
	}
	if err == nil { // a call whose error was logged where it failed (health_overview)
		return step.ReasonAdminAPIUnavailable, step.AdminSilent
	}
	return step.ReasonAdminAPIUnavailable, fmt.Sprintf("%s: %v", step.AdminSilent, err)
}

// ProblemOf classifies err for the status write (step.AdminProblem); nil is no problem.
func ProblemOf(err error) step.AdminProblem {
	if err == nil {
		return step.AdminProblem{}
	}
	reason, message := Problem(err)
	return step.AdminProblem{Reason: reason, Message: message, Waits: WaitsOnAdmin(err)}
}

// ExplainWait gives a step that waits on the admin API the reason it waits, when that is
// something to fix (a Secret, the credentials) rather than an API that did not answer.
func ExplainWait(s step.Step, err error) step.Step {
	if s.Kind != step.WaitForAdminAPI || err == nil || errors.Is(err, admin.ErrUnavailable) || !WaitsOnAdmin(err) {
		return s
	}
	_, why := Problem(err)
	s.Reason = why
	return s
}
