package history_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/test/history"
)

const operatorUser = "system:serviceaccount:broker-operator:broker-operator"

// auditLine is one audit.k8s.io/v1 Event line as kube-apiserver writes it at level Metadata
// (responseRV "" leaves responseObject out, as that level does).
func auditLine(id, stage, verb string, key history.Key, sub string, code int, received, completed time.Time, responseRV string) string {
	resp := ""
	if responseRV != "" {
		resp = fmt.Sprintf(`,"responseObject":{"kind":"BrokerCluster","metadata":{"name":%q,"resourceVersion":%q,"uid":"u-%s"}}`, key.Name, responseRV, key.Name)
	}
	return fmt.Sprintf(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":%q,"stage":%q,`+
		`"requestURI":"/x","verb":%q,"user":{"username":%q,"groups":["system:serviceaccounts"]},`+
		`"objectRef":{"resource":%q,"namespace":%q,"name":%q,"subresource":%q,"apiGroup":"brokers.example.com","apiVersion":"v1alpha1"},`+
		`"responseStatus":{"metadata":{},"code":%d},"requestReceivedTimestamp":%q,"stageTimestamp":%q%s}`,
		id, stage, verb, operatorUser, key.Resource, key.Namespace, key.Name, sub, code,
		received.Format("2006-01-02T15:04:05.000000Z07:00"), completed.Format("2006-01-02T15:04:05.000000Z07:00"), resp)
}

var t0 = time.Date(2026, 12, 2, 2, 19, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func TestParseAuditKeepsCompletedWritesInOrder(t *testing.T) {
	log := strings.Join([]string{
		auditLine("a-1", "ResponseComplete", "patch", bcKey, "status", 200, at(1), at(3), ""),
		auditLine("a-2", "ResponseComplete", "get", bcKey, "", 200, at(2), at(2), ""),
		auditLine("a-3", "ResponseStarted", "watch", stsKey, "", 200, at(2), at(2), ""),
		auditLine("a-4", "ResponseComplete", "update", lease, "", 409, at(4), at(5), ""),
		auditLine("a-5", "ResponseComplete", "create", stsKey, "", 201, at(6), at(7), "42"),
		`{"kind":"Event","auditID":"a-6","stage":"Respo`,
	}, "\n")
	a, err := history.ParseAudit(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range a.Entries {
		got = append(got, fmt.Sprintf("%d %s %s %s/%s %d %s", e.Line, e.AuditID, e.Verb, e.Key, e.Subresource, e.Code, e.RV))
	}
	want := []string{
		"1 a-1 patch brokerclusters ns/bc-1/status 200 ",
		"4 a-4 update leases ns/broker-operator/ 409 ",
		"5 a-5 create statefulsets ns/bc-1/ 201 42",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a.Truncated != 1 {
		t.Errorf("Truncated = %d, want 1", a.Truncated)
	}
	e, ok := a.Entry("a-1")
	if !ok || !e.Received.Equal(at(1)) || !e.Completed.Equal(at(3)) || e.User != operatorUser {
		t.Errorf("Entry(a-1) = %+v, %v", e, ok)
	}
	lease, _ := a.Entry("a-4")
	if !history.AppliedBefore(e, lease) {
		t.Error("a-1, completed before a-4 was received, is not AppliedBefore it")
	}
	if history.AppliedBefore(lease, e) {
		t.Error("a-4 was refused, yet AppliedBefore says it was applied")
	}
}

func TestParseAuditRejectsAMalformedLine(t *testing.T) {
	log := auditLine("a-1", "ResponseComplete", "patch", bcKey, "", 200, at(1), at(3), "") + "\n{not json\n" +
		auditLine("a-2", "ResponseComplete", "patch", bcKey, "", 200, at(4), at(5), "") + "\n"
	_, err := history.ParseAudit(strings.NewReader(log))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("ParseAudit = %v, want an error naming line 2", err)
	}
}

func TestWritesRacingTheLeaseAreNotOrdered(t *testing.T) {
	w := history.AuditEntry{Code: 200, Received: at(1), Completed: at(5)}
	l := history.AuditEntry{Code: 200, Received: at(5), Completed: at(6)}
	if history.AppliedBefore(&w, &l) {
		t.Error("a write completed at the same microsecond the lease write was received counts as applied before it")
	}
}
