package brokers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// superuserTracker keeps, per cluster and in memory only, the superuser's credentials that
// last authenticated, and the mark of what was last verified. A rotated Secret holds only the
// new password, which the brokers refuse until the user has it; the old one, kept here, is
// what sets it. Memory rather than a Secret of the operator's: the operator may read Secrets
// by name but not write them (deploy/rbac), and a copy of a superuser's password would be one
// more place to leak it. An operator restarted between the Secret's change and the rotation
// has lost it, and says so (SuperuserPasswordRefused).
type superuserTracker struct {
	mu    sync.Mutex
	creds map[string]lastGoodCreds
}

type lastGoodCreds struct {
	user, password string
	mark           string
}

func (t *superuserTracker) remember(key, user, password, mark string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.creds == nil {
		t.creds = map[string]lastGoodCreds{}
	}
	t.creds[key] = lastGoodCreds{user: user, password: password, mark: mark}
}

func (t *superuserTracker) lastGood(key string) (string, string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.creds[key]
	return c.user, c.password, ok
}

// verified is the mark of the Secret and mechanism last verified, "" for none.
func (t *superuserTracker) verified(key string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.creds[key].mark
}

func (t *superuserTracker) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.creds, key)
}

// credentialMark changes with the Secret's contents or the mechanism; it is a hash.
func credentialMark(sec adminSecurity, m admin.Mechanism) string {
	h := sha256.Sum256([]byte(sec.fingerprint + "\x00" + string(m)))
	return hex.EncodeToString(h[:])
}

// clientWithPassword is a client for bc's brokers with the Secrets' TLS and another password,
// made for one check and not kept: the cached client stays the Secret's.
func (a *Admin) clientWithPassword(ctx context.Context, bc *v1alpha1.BrokerCluster, user, password string) (admin.Client, error) {
	sec, err := a.ReadSecurity(ctx, bc)
	if err != nil {
		return nil, err
	}
	sec.username, sec.password = user, password
	client, err := a.clients.build(bc, bc.Status.CurrentReplicas, sec)
	if err != nil {
		return nil, err
	}
	return BoundByDeadline(ctx, client), nil
}
