package brokers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Security turned on for a running cluster, and the superuser's password rotated, through the
// admin API in stages, each reading what it relies on right before its call:
//
//  1. the SCRAM user of spec.adminAPI.auth is created (POST /v1/security/users) with the
//     Secret's password and the spec's mechanism, or its password set (PUT
//     /v1/security/users/{user}) when the Secret's is refused and the operator holds the one
//     that last worked;
//  2. it is added to the cluster property superusers, merged with the names already there;
//  3. only then is admin_api_require_auth set to true.
//
// The order is Redpanda's own rule: it refuses admin_api_require_auth with no superusers, and,
// while authentication is off, from a caller who is not one of them (redpanda-data/redpanda
// src/v/redpanda/admin/server.cc, config_multi_property_validation), so the write is made with
// the Secret's credentials, which authenticate only once the user exists
// (src/v/security/request_auth.cc: credentials that do not match pass as anonymous while
// authentication is off). All three properties are live (src/v/config/configuration.cc,
// needs_restart::no), as are enable_sasl and sasl_mechanisms: no broker restarts for them.
// Users and superusers are cluster-wide (the controller log), so one call serves every broker.
//
// Redpanda's own operator likewise merges the names it adds into superusers rather than replace
// them (redpanda-data/redpanda-operator operator/cmd/syncclusterconfig/sync.go,
// mergeSuperusers); its chart keeps the bootstrap user's first password and makes its Secret
// immutable (charts/redpanda/render_state.go, FetchBootstrapUser), so it has no rotation to
// follow.

// Condition reasons of SecurityReady, and event reasons of the stages.
const (
	// ReasonSecurityEnforced: the superuser exists with the Secret's password, is in
	// superusers, and admin_api_require_auth is on.
	ReasonSecurityEnforced = "SecurityEnforced"
	// ReasonSecuritySuperuserCreated: stage 1 created the user.
	ReasonSecuritySuperuserCreated = "SuperuserCreated"
	// ReasonSecuritySuperuserGranted: stage 2 added it to superusers.
	ReasonSecuritySuperuserGranted = "SuperuserGranted"
	// ReasonSecurityAuthEnforced: stage 3 turned admin_api_require_auth on.
	ReasonSecurityAuthEnforced = "AdminAPIAuthEnforced"
	// ReasonSecurityPasswordRotated: the user's password was set to the Secret's new one.
	ReasonSecurityPasswordRotated = "SuperuserPasswordRotated"
	// ReasonSecurityMechanismChanged: the user's SCRAM mechanism was set to the spec's.
	ReasonSecurityMechanismChanged = "SuperuserMechanismChanged"
	// ReasonSecurityPasswordDiffers: the user exists with another password or mechanism, and
	// nothing proves which is right; nothing is changed.
	ReasonSecurityPasswordDiffers = "SuperuserPasswordDiffers"
	// ReasonSecurityPasswordRefused: the brokers refuse the Secret's password and the operator
	// holds no other that works.
	ReasonSecurityPasswordRefused = "SuperuserPasswordRefused"
	// ReasonSecurityPropertyRefused: Redpanda refused the superusers or admin_api_require_auth
	// write.
	ReasonSecurityPropertyRefused = "SecurityPropertyRefused"
	// EventSecurityCheckFailed: the event of a check the admin API or a Secret stopped; the
	// condition then has the admin problem's or the Secret's reason.
	EventSecurityCheckFailed = "SecurityCheckFailed"
)

// SecurityStage is one stage done: its reason and what it says.
type SecurityStage struct{ Reason, Message string }

// SecurityOutcome is what one check did and found.
type SecurityOutcome struct {
	// Checked: the brokers were asked. A cluster verified before with the same Secret and spec
	// is not asked again.
	Checked bool
	// Stages done, in order, for the events.
	Stages []SecurityStage
	// The SecurityReady condition.
	Status          metav1.ConditionStatus
	Reason, Message string
}

// Ready reports whether the superuser is in place and enforcement is on.
func (o SecurityOutcome) Ready() bool { return o.Status == metav1.ConditionTrue }

// securityFacts are what the stages rely on, read fresh before each.
type securityFacts struct {
	requireAuth bool
	superusers  []string
	users       []string
}

// SyncSecurity runs the stages for bc, whose spec has adminAPI.auth. due says the caller wants
// the brokers asked whatever was verified before (the condition is not True, or the spec
// changed).
func (a *Admin) SyncSecurity(ctx context.Context, bc *v1alpha1.BrokerCluster, due bool) (SecurityOutcome, error) {
	var out SecurityOutcome
	sec, err := a.ReadSecurity(ctx, bc)
	if err != nil {
		return out, err
	}
	key := bc.Namespace + "/" + bc.Name
	want := admin.User{Name: sec.username, Password: sec.password, Mechanism: superuserMechanism(bc)}
	mark := credentialMark(sec, want.Mechanism)
	if !due && a.superusers.verified(key) == mark {
		return out, nil
	}
	out.Checked = true
	client, err := a.Client(ctx, bc)
	if err != nil {
		return out, err
	}
	s := &securityRun{a: a, bc: bc, key: key, want: want, own: client, acting: client, out: &out}
	if err := s.run(ctx); err != nil {
		return out, err
	}
	if out.Ready() {
		a.superusers.remember(key, sec.username, sec.password, mark)
	}
	return out, nil
}

// securityRun is one check's stages.
type securityRun struct {
	a   *Admin
	bc  *v1alpha1.BrokerCluster
	key string
	// want is the user the Secret and spec describe.
	want admin.User
	// own authenticates with the Secret; acting is own, or a client with the password that last
	// worked when the brokers refuse the Secret's.
	own, acting admin.Client
	// fallback: acting holds the password that last worked, of user lastUser.
	fallback bool
	lastUser string
	out      *SecurityOutcome
}

func (s *securityRun) run(ctx context.Context) error {
	facts, err := readSecurityFacts(ctx, s.acting)
	if errors.Is(err, admin.ErrUnauthorized) {
		facts, err = s.actWithLastGood(ctx)
		if s.out.Reason != "" || err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	if done, err := s.ensureUser(ctx, facts); done || err != nil {
		return err
	}
	if done, err := s.grant(ctx); done || err != nil {
		return err
	}
	if done, err := s.enforce(ctx); done || err != nil {
		return err
	}
	// The operator is not locked out: the Secret's credentials are a superuser's now.
	if _, err := readSecurityFacts(ctx, s.own); err != nil {
		return fmt.Errorf("check the superuser's credentials after the security stages: %w", err)
	}
	s.set(metav1.ConditionTrue, ReasonSecurityEnforced, fmt.Sprintf("user %q is a superuser and the admin API requires authentication", s.want.Name))
	return nil
}

// actWithLastGood switches to the credentials that last worked, when they differ from the
// Secret's: a rotated password, or a Secret that names another user.
func (s *securityRun) actWithLastGood(ctx context.Context) (securityFacts, error) {
	user, password, ok := s.a.superusers.lastGood(s.key)
	if !ok || (user == s.want.Name && password == s.want.Password) {
		s.set(metav1.ConditionFalse, ReasonSecurityPasswordRefused, fmt.Sprintf(
			"the brokers refuse the password of user %q in spec.adminAPI.auth's Secret, and the operator holds no other that works (it keeps the last one in memory only): put back the password the user has, or set the new one with rpk security user update", s.want.Name))
		return securityFacts{}, nil
	}
	client, err := s.a.clientWithPassword(ctx, s.bc, user, password)
	if err != nil {
		return securityFacts{}, err
	}
	s.acting, s.fallback, s.lastUser = client, true, user
	facts, err := readSecurityFacts(ctx, client)
	if errors.Is(err, admin.ErrUnauthorized) {
		s.set(metav1.ConditionFalse, ReasonSecurityPasswordRefused, fmt.Sprintf(
			"the brokers refuse both the Secret's password for user %q and the one that last worked: the password was changed elsewhere; put the user's password in the Secret", s.want.Name))
		return securityFacts{}, nil
	}
	return facts, err
}

// ensureUser is stage 1. It reports done when the check must stop here.
func (s *securityRun) ensureUser(ctx context.Context, facts securityFacts) (bool, error) {
	uc, err := UsersClientOf(s.acting)
	if err != nil {
		return false, err
	}
	name := s.want.Name
	switch {
	case !slices.Contains(facts.users, name):
		if err := uc.CreateUser(ctx, s.want); err != nil {
			return false, fmt.Errorf("create superuser %q: %w", name, err)
		}
		s.stage(ReasonSecuritySuperuserCreated, fmt.Sprintf("created user %q (%s) from spec.adminAPI.auth's Secret", name, s.want.Mechanism))
		return false, nil
	case s.fallback && s.lastUser == name:
		// The acting password is the one that last worked: the Secret holds the new one.
		if err := uc.UpdateUser(ctx, s.want); err != nil {
			return false, fmt.Errorf("set the password of superuser %q: %w", name, err)
		}
		s.stage(ReasonSecurityPasswordRotated, fmt.Sprintf("set the password of user %q to the one in spec.adminAPI.auth's Secret", name))
		return false, nil
	}
	// A create of the same password and mechanism is a no-op (security.cc, is_no_op_user_write).
	err = uc.CreateUser(ctx, s.want)
	switch {
	case err == nil:
		return false, nil
	case !errors.Is(err, admin.ErrUserExists):
		return false, fmt.Errorf("check superuser %q: %w", name, err)
	case facts.requireAuth:
		// The Secret's password authenticated with authentication required, so only the
		// mechanism differs: set it as spec.kafka.sasl asks.
		if err := uc.UpdateUser(ctx, s.want); err != nil {
			return false, fmt.Errorf("set the mechanism of superuser %q: %w", name, err)
		}
		s.stage(ReasonSecurityMechanismChanged, fmt.Sprintf("set the SCRAM mechanism of user %q to %s", name, s.want.Mechanism))
		return false, nil
	}
	s.set(metav1.ConditionFalse, ReasonSecurityPasswordDiffers, fmt.Sprintf(
		"user %q exists with another password or SCRAM mechanism than spec.adminAPI.auth's Secret and spec.kafka.sasl say; nothing is changed, so that no client using it is locked out: put its password in the Secret, or name another user", name))
	return true, nil
}

// grant is stage 2: superusers, read right before, gains the user; no name is dropped.
func (s *securityRun) grant(ctx context.Context) (bool, error) {
	facts, err := readSecurityFacts(ctx, s.acting)
	if err != nil {
		return false, err
	}
	if slices.Contains(facts.superusers, s.want.Name) {
		return false, nil
	}
	next := append(slices.Clone(facts.superusers), s.want.Name)
	if done, err := s.write(ctx, s.acting, "superusers", next); done || err != nil {
		return done, err
	}
	s.stage(ReasonSecuritySuperuserGranted, fmt.Sprintf("added user %q to superusers", s.want.Name))
	return false, nil
}

// enforce is stage 3, with the Secret's credentials: Redpanda lets only a superuser turn
// authentication on.
func (s *securityRun) enforce(ctx context.Context) (bool, error) {
	facts, err := readSecurityFacts(ctx, s.own)
	if err != nil {
		return false, err
	}
	if facts.requireAuth {
		return false, nil
	}
	if !slices.Contains(facts.users, s.want.Name) || !slices.Contains(facts.superusers, s.want.Name) {
		return false, fmt.Errorf("user %q is not a superuser yet; admin_api_require_auth waits", s.want.Name) // changed under the check
	}
	if done, err := s.write(ctx, s.own, "admin_api_require_auth", true); done || err != nil {
		return done, err
	}
	s.stage(ReasonSecurityAuthEnforced, fmt.Sprintf("set admin_api_require_auth: the admin API requires user %q's credentials or another user's from now on", s.want.Name))
	return false, nil
}

// write upserts one property; Redpanda's refusal stops the check with a condition.
func (s *securityRun) write(ctx context.Context, client admin.Client, name string, value any) (bool, error) {
	cc, err := ConfigClient(client)
	if err != nil {
		return false, err
	}
	raw, _ := json.Marshal(value)
	_, err = cc.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{name: raw}, Remove: []string{}})
	var ve *admin.ConfigValidationError
	if errors.As(err, &ve) {
		s.set(metav1.ConditionFalse, ReasonSecurityPropertyRefused, fmt.Sprintf("Redpanda refused %s: %v", name, ve.Properties))
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("write %s: %w", name, err)
	}
	klog.FromContext(ctx).V(2).Info("Wrote a security cluster property", "property", name)
	return false, nil
}

func (s *securityRun) stage(reason, message string) {
	s.out.Stages = append(s.out.Stages, SecurityStage{Reason: reason, Message: message})
	// Until a later stage says more, the condition shows the last stage reached.
	s.set(metav1.ConditionFalse, reason, message)
}

func (s *securityRun) set(status metav1.ConditionStatus, reason, message string) {
	s.out.Status, s.out.Reason, s.out.Message = status, reason, message
}

// readSecurityFacts reads admin_api_require_auth, superusers and the users: superuser calls, so
// an answer also proves the client's credentials are a superuser's when authentication is on.
func readSecurityFacts(ctx context.Context, client admin.Client) (securityFacts, error) {
	var f securityFacts
	cc, err := ConfigClient(client)
	if err != nil {
		return f, err
	}
	cfg, err := cc.ClusterConfig(ctx, true)
	if err != nil {
		return f, err
	}
	if raw, ok := cfg["admin_api_require_auth"]; ok {
		if err := json.Unmarshal(raw, &f.requireAuth); err != nil {
			return f, fmt.Errorf("admin_api_require_auth: %w", err)
		}
	}
	if raw, ok := cfg["superusers"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &f.superusers); err != nil {
			return f, fmt.Errorf("superusers: %w", err)
		}
	}
	uc, err := UsersClientOf(client)
	if err != nil {
		return f, err
	}
	f.users, err = uc.Users(ctx)
	return f, err
}

// superuserMechanism is the spec's SCRAM mechanism, Redpanda's default (SCRAM-SHA-256, as
// RP_BOOTSTRAP_USER without one) unless spec.kafka.sasl names another.
func superuserMechanism(bc *v1alpha1.BrokerCluster) admin.Mechanism {
	if k := bc.Spec.Kafka; k != nil && k.SASL != nil && k.SASL.Mechanism != "" {
		return admin.Mechanism(k.SASL.Mechanism)
	}
	return admin.SCRAMSHA256
}
