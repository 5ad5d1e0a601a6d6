//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// TestScaleDownDecommissionsHighestFirst scales 5 brokers to 2 with kubectl scale: each of the
// three brokers is decommissioned exactly once, highest ordinal first, its Pod goes only after it
// left, and status and the printer columns tell the story.
func TestScaleDownDecommissionsHighestFirst(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "scaledown"
	env.CreateCluster(t, ns, name, 5, time.Second)
	env.AwaitConverged(t, ns, name, 5)
	ids := env.NodeIDs(t, ns, name, 5)
	steps := recordStatusSteps(t, ns, name)

	env.Scale(t, ns, name, 2)
	// While a broker drains, the Decommissioning column names it.
	row := awaitTableRow(t, ns, name, func(r map[string]any) bool { return r["Decommissioning"] != nil })
	if got := fmt.Sprint(row["Decommissioning"]); !slices.Contains([]string{fmt.Sprint(ids[4]), fmt.Sprint(ids[3]), fmt.Sprint(ids[2])}, got) {
		t.Errorf("Decommissioning column shows %s during the scale-down, want one of brokers %v", got, ids[2:])
	}
	env.AwaitConverged(t, ns, name, 2)

	if got, want := adminCalls(ns, name, "decommission"), []int{ids[4], ids[3], ids[2]}; !slices.Equal(got, want) {
		t.Errorf("decommission calls for brokers %v, want %v (ordinals 4, 3, 2, once each)", got, want)
	}
	if got := adminCalls(ns, name, "recommission"); len(got) > 0 {
		t.Errorf("recommission calls for brokers %v, want none", got)
	}
	want := []string{
		"current=5 decommissioning=none",
		fmt.Sprintf("current=5 decommissioning=%d", ids[4]),
		"current=4 decommissioning=none",
		fmt.Sprintf("current=4 decommissioning=%d", ids[3]),
		"current=3 decommissioning=none",
		fmt.Sprintf("current=3 decommissioning=%d", ids[2]),
		"current=2 decommissioning=none",
	}
	if got := steps.since(want[0]); !slices.Equal(got, want) {
		t.Errorf("status went through\n %q\nwant\n %q", got, want)
	}
	checkBrokersSafe(t, ns, name)

	final := tableRow(t, ns, name)
	for column, want := range map[string]string{"Name": name, "Desired": "2", "Current": "2", "Ready": "2", "Decommissioning": "<nil>"} {
		if got := fmt.Sprint(final[column]); got != want {
			t.Errorf("printer column %s shows %s after the scale-down, want %s", column, got, want)
		}
	}
	checkNoForbidden(t)
}

// TestScaleUpDuringDrainRecommissions scales down and, while the broker drains, back up: the
// broker is recommissioned, keeps its Pod and its node ID, and nothing else is decommissioned.
func TestScaleUpDuringDrainRecommissions(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "recommission"
	env.CreateCluster(t, ns, name, 3, time.Hour) // the drain never ends on its own
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	pod2, err := env.Kube.CoreV1().Pods(ns).Get(t.Context(), name+"-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	env.Scale(t, ns, name, 2)
	if draining := env.AwaitDraining(t, ns, name); int(draining) != ids[2] {
		t.Fatalf("broker %d is being decommissioned, want %d (ordinal 2)", draining, ids[2])
	}
	env.Scale(t, ns, name, 3)
	env.AwaitConverged(t, ns, name, 3)

	if got := adminCalls(ns, name, "recommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("recommission calls for brokers %v, want [%d]", got, ids[2])
	}
	if got := adminCalls(ns, name, "decommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("decommission calls for brokers %v, want [%d]", got, ids[2])
	}
	if got := env.NodeIDs(t, ns, name, 3); !slices.Equal(got, ids) {
		t.Errorf("brokers after the recommission %v, want the same brokers %v", got, ids)
	}
	now, err := env.Kube.CoreV1().Pods(ns).Get(t.Context(), name+"-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if now.UID != pod2.UID {
		t.Errorf("pod %s-2 was replaced during the drain; it should have stayed", name)
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// tableRow returns a BrokerCluster as kubectl get shows it: printer column name to cell.
func tableRow(t *testing.T, ns, name string) map[string]any {
	t.Helper()
	row, err := fetchTableRow(t.Context(), ns, name)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// awaitTableRow polls the table form of a BrokerCluster until ok accepts a row.
func awaitTableRow(t *testing.T, ns, name string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	var (
		row  map[string]any
		last error
	)
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		row, last = fetchTableRow(ctx, ns, name)
		return last == nil && ok(row), nil
	})
	if err != nil {
		t.Fatalf("waiting for the printer columns of %s/%s (last row %v, error %v): %v", ns, name, row, last, err)
	}
	return row
}

func fetchTableRow(ctx context.Context, ns, name string) (map[string]any, error) {
	raw, err := env.Brokers.BrokersV1alpha1().RESTClient().Get().
		Namespace(ns).Resource("brokerclusters").Name(name).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").
		Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		return nil, fmt.Errorf("decode table: %w", err)
	}
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) != len(table.ColumnDefinitions) {
		return nil, fmt.Errorf("table has %d rows and %d columns, want one full row", len(table.Rows), len(table.ColumnDefinitions))
	}
	row := map[string]any{}
	for i, c := range table.ColumnDefinitions {
		row[c.Name] = table.Rows[0].Cells[i]
	}
	return row, nil
}
