package controller

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// series is one exported series: its labels and value.
type series struct {
	labels map[string]string
	value  float64
}

// gathered returns the series of the gauge name that the registry exports.
func (h *harness) gathered(name string) []series {
	h.t.Helper()
	families, err := h.registry.Gather()
	if err != nil {
		h.t.Fatal(err)
	}
	var out []series
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			s := series{labels: map[string]string{}, value: m.GetGauge().GetValue()}
			for _, l := range m.GetLabel() {
				s.labels[l.GetName()] = l.GetValue()
			}
			out = append(out, s)
		}
	}
	return out
}

// conditionSeries returns the test cluster's broker_operator_cluster_condition series as
// "type status reason", sorted, after checking that each is 1 and names the cluster.
func (h *harness) conditionSeries() []string {
	h.t.Helper()
	var out []string
	for _, s := range h.gathered("broker_operator_cluster_condition") {
		if s.value != 1 || s.labels["namespace"] != testNamespace || s.labels["name"] != testName {
			h.t.Errorf("series %v = %v, want the test cluster's, of value 1", s.labels, s.value)
		}
		out = append(out, s.labels["type"]+" "+s.labels["status"]+" "+s.labels["reason"])
	}
	slices.Sort(out)
	return out
}

// The condition metric has one series per condition the status holds, with its status and
// reason: a condition whose status or reason changes keeps one series, the new one, and a
// deleted cluster has none left.
func TestClusterConditionSeriesFollowTheStatus(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	want := []string{}
	for _, c := range h.stored().Status.Conditions {
		want = append(want, c.Type+" "+string(c.Status)+" "+c.Reason)
	}
	slices.Sort(want)
	if got := h.conditionSeries(); !slices.Equal(got, want) {
		t.Fatalf("series %v, want the status' conditions %v", got, want)
	}
	if !slices.Contains(want, "Degraded False AsExpected") || !slices.Contains(want, "Ready True AllBrokersReady") {
		t.Fatalf("conditions %v: the test expects a Ready cluster that is not Degraded", want)
	}

	// A scale-down the remaining brokers cannot hold: Degraded turns True with its reason.
	h.cluster.SetReplicationFactor(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.reconcileAfterPoll()
	if d := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded); d == nil || d.Reason != ReasonScaleDownWouldNotFit {
		t.Fatalf("Degraded %+v, want %s", d, ReasonScaleDownWouldNotFit)
	}
	got := h.conditionSeries()
	degraded := slices.DeleteFunc(slices.Clone(got), func(s string) bool { return !strings.HasPrefix(s, "Degraded ") })
	if !slices.Equal(degraded, []string{"Degraded True " + ReasonScaleDownWouldNotFit}) {
		t.Errorf("Degraded series %v, want only the True one with reason %s", degraded, ReasonScaleDownWouldNotFit)
	}
	if slices.Contains(got, "Ready True AllBrokersReady") || !slices.Contains(got, "Ready False "+ReasonScalingDown) {
		t.Errorf("series %v, want Ready False %s and no longer Ready True", got, ReasonScalingDown)
	}

	if err := h.brokers.BrokersV1alpha1().BrokerClusters(testNamespace).Delete(h.ctx, testName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	if got := h.conditionSeries(); len(got) != 0 {
		t.Errorf("series %v of a deleted cluster, want none", got)
	}
}

// The next maintenance window is exported while a step waits for it, and not once the wait is
// over.
func TestNextMaintenanceWindowIsExportedWhileAStepWaits(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	const metric = "broker_operator_cluster_next_maintenance_window_timestamp_seconds"
	if got := h.gathered(metric); len(got) != 0 {
		t.Fatalf("%s %v with no step waiting, want no series", metric, got)
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.MaintenanceWindows = dailyAtOne })
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.reconcileAfterPoll()
	opens := time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)
	got := h.gathered(metric)
	if len(got) != 1 || got[0].value != float64(opens.Unix()) || got[0].labels["namespace"] != testNamespace || got[0].labels["name"] != testName {
		t.Fatalf("%s %v, want one series of the cluster at %v", metric, got, opens)
	}

	// Every per-cluster status metric the chart's alerts read is one the controller exports.
	rules, err := os.ReadFile("../../charts/broker-operator/templates/prometheus_rule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`broker_operator_cluster_[a-z_]+`).FindAllString(string(rules), -1)
	if len(read) == 0 {
		t.Fatal("the chart's alerts read no broker_operator_cluster_ metric; is the pattern still right?")
	}
	for _, name := range read {
		if len(h.gathered(name)) == 0 {
			t.Errorf("the chart's alerts read %s, which the controller does not export", name)
		}
	}

	h.clock.SetTime(opens.Add(30 * time.Minute))
	h.settle(20)
	if got := h.gathered(metric); len(got) != 0 {
		t.Errorf("%s %v once the scale-down went on, want no series", metric, got)
	}
}

// A controller whose informers have stopped exports no condition: its caches no longer follow
// the API server.
func TestStoppedControllerExportsNoConditions(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(1)
	if len(h.conditionSeries()) == 0 {
		t.Fatal("no condition series while the controller runs")
	}
	// As Run ends: the informers' stop channel closes, then they are shut down.
	h.stop()
	h.c.shutdownInformers()
	if got := h.conditionSeries(); len(got) != 0 {
		t.Errorf("series %v after the informers stopped, want none", got)
	}
}
