package controller

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The simulator's properties (admintest/clusterconfig_props.go, after Redpanda's
// configuration.cc): kafka_rpc_server_tcp_recv_buf needs a restart, the others do not.
const (
	restartProperty = "kafka_rpc_server_tcp_recv_buf"
	segmentProperty = "log_segment_size"
)

// simConfig is the cluster configuration the simulator holds, set properties only.
func (h *harness) simConfig() map[string]json.RawMessage {
	h.t.Helper()
	cfg, err := h.simConfigClient().ClusterConfig(h.ctx, false)
	if err != nil {
		h.t.Fatal(err)
	}
	return cfg
}

// simConfigClient is a client of the simulator's cluster configuration endpoints.
func (h *harness) simConfigClient() admin.ClusterConfigClient {
	h.t.Helper()
	cc, err := admin.NewClusterConfigClient(h.cluster.Config(1))
	if err != nil {
		h.t.Fatal(err)
	}
	return cc
}

// configCondition is the stored ConfigApplied condition, or a zero one.
func (h *harness) configCondition() metav1.Condition {
	h.t.Helper()
	if c := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionConfigApplied); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// settleConfig reconciles, a poll interval apart, until the cluster properties are in effect
// and no broker is being restarted, checking after each reconcile that no two brokers are in
// maintenance at once.
func (h *harness) settleConfig(max int) {
	h.t.Helper()
	for range max {
		h.reconcileAfterPoll()
		if o := h.overlappingMaintenance(); len(o) > 0 {
			h.t.Fatalf("two brokers in maintenance at once: %v", o)
		}
		if c := h.configCondition(); c.Status == metav1.ConditionTrue && h.stored().Status.Restart == nil {
			return
		}
	}
	h.t.Fatalf("cluster properties not in effect after %d reconciles: %+v", max, h.configCondition())
}

func TestClusterPropertyThatNeedsARestartRollsTheBrokersOneAtATime(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	before := h.podUIDs()
	h.events()

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.ClusterConfig = map[string]string{restartProperty: "65536", segmentProperty: "268435456"}
	})
	h.settleConfig(40)

	cfg := h.simConfig()
	if string(cfg[restartProperty]) != "65536" || string(cfg[segmentProperty]) != "268435456" {
		t.Errorf("simulator config %s, want both properties set", cfg)
	}
	h.checkRestartedOneAtATime(ids, before)
	if n := h.callsTo("PUT", "/v1/cluster_config"); n != 1 {
		t.Errorf("%d writes of the cluster config, want 1", n)
	}
	st := h.stored().Status.ClusterConfig
	both := []string{restartProperty, segmentProperty}
	if st == nil || !slices.Equal(st.Applied, both) || !slices.Equal(st.Managed, both) || st.PendingRestart != nil || st.BrokersPendingRestart != nil || st.Rejected != nil {
		t.Errorf("status.clusterConfig %+v, want both applied and managed, nothing pending", st)
	}
	h.checkConfigEvents(ids)

	// In effect: later reconciles ask the brokers nothing about it.
	calls := len(h.cluster.Calls())
	for range 3 {
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(h.cluster.Calls()) - calls; n != 0 {
		t.Errorf("a steady cluster made %d admin calls", n)
	}
}

// checkConfigEvents checks that the ConfigApplied events say what happened, each once.
func (h *harness) checkConfigEvents(ids map[int]int) {
	h.t.Helper()
	var config []string
	for _, e := range h.events() {
		if strings.Contains(e, " ClusterConfig") {
			config = append(config, e)
		}
	}
	want := []string{
		fmt.Sprintf("Normal ClusterConfigRestartPending cluster properties %s, %s applied; 3 brokers need a restart (%s)", restartProperty, segmentProperty, idList(ids[0], ids[1], ids[2])),
		fmt.Sprintf("Normal ClusterConfigRestartPending cluster properties %s, %s applied; 2 brokers need a restart (%s)", restartProperty, segmentProperty, idList(ids[0], ids[1])),
		fmt.Sprintf("Normal ClusterConfigRestartPending cluster properties %s, %s applied; 1 broker needs a restart (%d)", restartProperty, segmentProperty, ids[0]),
		fmt.Sprintf("Normal ClusterConfigApplied cluster properties %s, %s applied on every broker", restartProperty, segmentProperty),
	}
	if !slices.Equal(config, want) {
		h.t.Errorf("cluster config events:\n%s\nwant:\n%s", strings.Join(config, "\n"), strings.Join(want, "\n"))
	}
}

// idList is node IDs sorted and joined as the condition messages write them.
func idList(ids ...int) string {
	slices.Sort(ids)
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

func TestInvalidClusterPropertyIsReportedAndNothingChanges(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.ClusterConfig = map[string]string{segmentProperty: "268435456"} })
	h.settleConfig(5)
	h.events()
	puts := h.callsTo("PUT", "/v1/cluster_config")

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.ClusterConfig = map[string]string{segmentProperty: "1024", "auto_create_topics_enabled": "true", "no_such_property": "1"}
	})
	for range 4 {
		h.simClock.Advance(pollInterval)
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}

	c := h.configCondition()
	wantMsg := "Redpanda refused the cluster properties and changed nothing: log_segment_size: too small, must be at least 1048576; no_such_property: Unknown property"
	if c.Status != metav1.ConditionFalse || c.Reason != ReasonConfigRejected || c.Message != wantMsg {
		t.Errorf("ConfigApplied %+v, want False Rejected %q", c, wantMsg)
	}
	st := h.stored().Status
	want := []v1alpha1.RejectedProperty{{Name: "log_segment_size", Reason: "too small, must be at least 1048576"}, {Name: "no_such_property", Reason: "Unknown property"}}
	if cc := st.ClusterConfig; cc == nil || !slices.Equal(cc.Rejected, want) || cc.Applied != nil || !slices.Equal(cc.Managed, []string{segmentProperty}) {
		t.Errorf("status.clusterConfig %+v, want the two rejected, nothing applied, %s still managed", cc, segmentProperty)
	}
	cfg := h.simConfig()
	if len(cfg) != 1 || string(cfg[segmentProperty]) != "268435456" {
		t.Errorf("simulator config %s, want only the earlier %s", cfg, segmentProperty)
	}
	if n := h.callsTo("PUT", "/v1/cluster_config") - puts; n != 1 {
		t.Errorf("%d writes after the invalid spec, want 1: a refused write is tried again only when the spec changes", n)
	}
	if len(h.podDeletes()) > 0 || len(h.maintenanceCalls()) > 0 || st.Restart != nil {
		t.Errorf("the refused properties restarted brokers: deletes %v, maintenance %v", h.podDeletes(), h.maintenanceCalls())
	}
	if meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionDegraded) {
		t.Error("a refused property degraded the cluster")
	}
	var warnings []string
	for _, e := range h.events() {
		if strings.HasPrefix(e, "Warning ClusterConfigRejected") {
			warnings = append(warnings, e)
		}
	}
	if len(warnings) != 1 || !strings.HasSuffix(warnings[0], wantMsg) {
		t.Errorf("rejection events %q, want one with Redpanda's answer", warnings)
	}

	// Fixed, it applies.
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.ClusterConfig = map[string]string{"auto_create_topics_enabled": "true"}
	})
	h.settleConfig(5)
	cfg = h.simConfig()
	if len(cfg) != 1 || string(cfg["auto_create_topics_enabled"]) != "true" {
		t.Errorf("simulator config %s, want only auto_create_topics_enabled: the property that left the spec is reset", cfg)
	}
}

func TestClusterPropertyLeavingTheSpecIsResetOnlyIfTheOperatorSetIt(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	// Set by a user with rpk, outside the spec.
	cc, err := admin.NewClusterConfigClient(h.cluster.Config(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.PatchClusterConfig(h.ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{"default_topic_replications": json.RawMessage("3")}}); err != nil {
		t.Fatal(err)
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.ClusterConfig = map[string]string{segmentProperty: "268435456", "auto_create_topics_enabled": "true"}
	})
	h.settleConfig(5)

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.ClusterConfig = map[string]string{"auto_create_topics_enabled": "true"}
	})
	h.settleConfig(5)
	cfg := h.simConfig()
	if _, set := cfg[segmentProperty]; set || string(cfg["default_topic_replications"]) != "3" || string(cfg["auto_create_topics_enabled"]) != "true" {
		t.Errorf("simulator config %s, want %s reset, the rpk property kept", cfg, segmentProperty)
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.ClusterConfig = nil })
	h.settleConfig(5)
	if cfg := h.simConfig(); len(cfg) != 1 || string(cfg["default_topic_replications"]) != "3" {
		t.Errorf("simulator config %s, want only the rpk property", cfg)
	}
	if st := h.stored().Status.ClusterConfig; st == nil || st.Managed != nil || st.Applied != nil {
		t.Errorf("status.clusterConfig %+v, want nothing managed", st)
	}
	if c := h.configCondition(); c.Message != "no cluster properties set by the operator" {
		t.Errorf("ConfigApplied %+v", c)
	}
}

func TestClusterPropertiesWaitForAnAdminAPIThatDoesNotAnswer(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.events()
	h.cluster.SetFault(admintest.Fault{Refuse: true})
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.ClusterConfig = map[string]string{segmentProperty: "268435456"} })
	for range 3 {
		res, err := h.reconcile()
		if err != nil {
			t.Fatalf("a cluster property the brokers cannot be asked about failed the reconcile: %v", err)
		}
		if res.RequeueAfter != pollInterval {
			t.Errorf("requeue after %v, want %v while the write waits", res.RequeueAfter, pollInterval)
		}
	}
	if c := h.configCondition(); c.Status != metav1.ConditionUnknown || c.Reason != ReasonAdminAPIUnavailable {
		t.Errorf("ConfigApplied %+v, want Unknown AdminAPIUnavailable", c)
	}
	var warnings int
	for _, e := range h.events() {
		if strings.HasPrefix(e, "Warning ClusterConfigAdminAPIUnavailable") {
			warnings++
		}
	}
	if warnings != 1 {
		t.Errorf("%d events for the admin API, want 1 over three polls", warnings)
	}

	h.cluster.SetFault(admintest.Fault{})
	h.settleConfig(3)
	if cfg := h.simConfig(); string(cfg[segmentProperty]) != "268435456" {
		t.Errorf("simulator config %s after the admin API came back", cfg)
	}
}
