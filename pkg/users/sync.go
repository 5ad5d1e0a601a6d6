package users

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// reconcile is one pass over one BrokerUser: bu is the latest copy (each write replaces it),
// status the status the pass will write, once, at its end.
type reconcile struct {
	c      *Controller
	nc     *namespaceCache
	bu     *v1alpha1.BrokerUser
	status v1alpha1.BrokerUserStatus
	// bc is the referenced cluster; nil when it is not found or is being deleted.
	bc *v1alpha1.BrokerCluster
}

// sync reconciles the BrokerUser named by key. It returns an error for a failure worth a retry
// with backoff; a wait that an event will end (the cluster created, the adopt annotation) is a
// condition and returns nil.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // a malformed key never becomes valid
	}
	nc := c.cacheFor(ns)
	if nc == nil {
		return nil
	}
	bu, err := nc.users.BrokerUsers(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	r := &reconcile{c: c, nc: nc, bu: bu, status: *bu.Status.DeepCopy()}
	bc, err := nc.clusters.BrokerClusters(ns).Get(bu.Spec.ClusterRef.Name)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	case bc.DeletionTimestamp == nil:
		r.bc = bc
	}
	klog.FromContext(ctx).V(4).Info("Reconciling BrokerUser", "brokeruser", klog.KObj(bu))

	if bu.DeletionTimestamp != nil {
		return r.finalize(ctx)
	}
	if err := r.keepFinalizer(ctx); err != nil {
		return err
	}
	r.status.ObservedGeneration = r.bu.Generation
	err = r.converge(ctx)
	return errors.Join(err, r.writeStatus(ctx))
}

// converge brings the user and its ACLs to the spec, or says in Ready why it does not.
func (r *reconcile) converge(ctx context.Context) error {
	if r.bc == nil {
		r.notReady(ReasonClusterNotFound, fmt.Sprintf("BrokerCluster %s does not exist in namespace %s, or is being deleted", r.bu.Spec.ClusterRef.Name, r.bu.Namespace))
		return nil
	}
	mech, ok := mechanism(r.bc)
	if !ok {
		r.notReady(ReasonSASLNotEnabled, fmt.Sprintf("BrokerCluster %s has no spec.kafka.sasl: its listeners ask for no SCRAM credentials, and it names no mechanism for them", r.bc.Name))
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.c.cfg.CallTimeout)
	defer cancel()
	if super, err := r.superuser(ctx); err != nil {
		return r.adminFailed(err, "read the superuser's name")
	} else if super == r.bu.Name {
		r.notReady(ReasonSuperuserRefused, fmt.Sprintf("%s is the superuser of cluster %s (spec.adminAPI.auth); the operator never changes it", r.bu.Name, r.bc.Name))
		return nil
	}
	pw, err := r.password(ctx)
	if err != nil {
		return r.passwordFailed(err)
	}
	cl, err := r.c.cfg.Admin(ctx, r.bc)
	if err != nil {
		return r.adminFailed(err, "connect to the admin API")
	}
	names, err := cl.Users(ctx)
	if err != nil {
		return r.adminFailed(err, "list users")
	}
	u := admin.User{Name: r.bu.Name, Password: pw.value, Mechanism: mech}
	if !slices.Contains(names, r.bu.Name) {
		return r.create(ctx, cl, u, pw)
	}
	switch r.status.Origin {
	case v1alpha1.UserCreating:
		// The create's answer was lost, or its status write failed: the intent was recorded
		// before the request, so the user is this resource's.
		r.status.Origin = v1alpha1.UserCreated
	case "":
		if !adoptRequested(r.bu) {
			r.notReady(ReasonAdoptionRequired, fmt.Sprintf("user %s already exists on cluster %s and this resource did not create it; it is left untouched until the resource is annotated %s=true", r.bu.Name, r.bc.Name, v1alpha1.AdoptAnnotation))
			return nil
		}
		r.status.Origin, r.status.PasswordVersion = v1alpha1.UserAdopted, "" // its password is unknown: set it
		r.event(corev1.EventTypeNormal, EventUserAdopted, "Adopted the existing user %s", r.bu.Name)
	}
	if err := r.setPassword(ctx, cl, u, pw); err != nil {
		return err
	}
	return r.converged(ctx)
}

// create records the intent in status, holds the finalizer, then creates the user.
func (r *reconcile) create(ctx context.Context, cl admin.UsersClient, u admin.User, pw password) error {
	r.status.Origin = v1alpha1.UserCreating
	if err := r.writeStatus(ctx); err != nil {
		return err
	}
	if err := r.keepFinalizer(ctx); err != nil {
		return err
	}
	err := cl.CreateUser(ctx, u)
	switch {
	case err == nil:
		r.status.Origin = v1alpha1.UserCreated
		r.recordPassword(u, pw)
		r.event(corev1.EventTypeNormal, EventUserCreated, "Created user %s (%s)", u.Name, u.Mechanism)
		return r.converged(ctx)
	case errors.Is(err, admin.ErrUserExists):
		// Made by someone else, with another password, between the look and the create.
		r.status.Origin = ""
		r.event(corev1.EventTypeWarning, EventCreateRaced, "User %s was created by someone else while this resource was creating it; annotate %s=true to manage it", u.Name, v1alpha1.AdoptAnnotation)
		r.notReady(ReasonAdoptionRequired, fmt.Sprintf("user %s already exists on cluster %s and this resource did not create it; it is left untouched until the resource is annotated %s=true", u.Name, r.bc.Name, v1alpha1.AdoptAnnotation))
		return nil
	case errors.Is(err, admin.ErrBadRequest):
		r.status.Origin = "" // answered: nothing was created
		return r.adminFailed(err, "create user")
	default:
		// No answer: the user may exist now. Origin stays Creating, so the next pass that
		// finds it takes it as this resource's.
		return r.adminFailed(err, "create user")
	}
}

// setPassword sets the password again when its Secret, or the cluster's mechanism, changed
// since it was last set.
func (r *reconcile) setPassword(ctx context.Context, cl admin.UsersClient, u admin.User, pw password) error {
	if r.status.Mechanism == v1alpha1.SASLMechanism(u.Mechanism) && r.status.SecretName == pw.secret && r.status.PasswordVersion == pw.version {
		return nil
	}
	if err := cl.UpdateUser(ctx, u); err != nil {
		return r.adminFailed(err, "set the password")
	}
	r.recordPassword(u, pw)
	r.event(corev1.EventTypeNormal, EventPasswordSet, "Set the password of user %s from Secret %s (%s)", u.Name, pw.secret, u.Mechanism)
	return nil
}

func (r *reconcile) recordPassword(u admin.User, pw password) {
	r.status.Mechanism = v1alpha1.SASLMechanism(u.Mechanism)
	r.status.SecretName, r.status.PasswordVersion = pw.secret, pw.version
}

// converged brings the ACLs to the spec; the user is then Ready.
func (r *reconcile) converged(ctx context.Context) error {
	if err := r.syncACLs(ctx); err != nil {
		return err
	}
	r.ready()
	return nil
}

// mechanism is the SCRAM mechanism of the cluster's SASL; false without SASL.
func mechanism(bc *v1alpha1.BrokerCluster) (admin.Mechanism, bool) {
	if bc.Spec.Kafka == nil || bc.Spec.Kafka.SASL == nil {
		return "", false
	}
	if bc.Spec.Kafka.SASL.Mechanism == v1alpha1.SCRAMSHA512 {
		return admin.SCRAMSHA512, true
	}
	return admin.SCRAMSHA256, true // the CRD's default
}

func adoptRequested(bu *v1alpha1.BrokerUser) bool {
	return bu.Annotations[v1alpha1.AdoptAnnotation] == "true"
}

// adminFailed records a failed admin API call in Ready and returns it for a retry with backoff.
func (r *reconcile) adminFailed(err error, what string) error {
	reason := ReasonAdminAPIUnavailable
	if errors.Is(err, admin.ErrBadRequest) {
		reason = ReasonRequestRefused
	}
	r.notReady(reason, fmt.Sprintf("%s (user %s, cluster %s): %v", what, r.bu.Name, r.bc.Name, err))
	return fmt.Errorf("%s (user %s): %w", what, r.bu.Name, err)
}

func (r *reconcile) event(eventType, reason, format string, args ...any) {
	r.c.cfg.Recorder.Eventf(r.bu, eventType, reason, format, args...)
}
