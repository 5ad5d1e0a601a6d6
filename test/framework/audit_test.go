package framework

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestForbiddenRequestsReadsTheAuditLog(t *testing.T) {
	dir := t.TempDir()
	cp := &ControlPlane{audit: auditFiles{log: filepath.Join(dir, "audit.log")}}
	if got, err := cp.ForbiddenRequests(); err != nil || len(got) != 0 {
		t.Fatalf("before the apiserver wrote a log: %v, %v; want none, nil", got, err)
	}
	log := `{"kind":"Event","level":"Metadata","stage":"ResponseComplete","requestURI":"/api/v1/pods","verb":"list","user":{"username":"system:serviceaccount:a:op"},"responseStatus":{"code":200}}
{"kind":"Event","level":"Metadata","stage":"ResponseComplete","requestURI":"/api/v1/secrets","verb":"watch","user":{"username":"system:serviceaccount:a:op"},"responseStatus":{"code":403}}
{"kind":"Event","level":"Metadata","stage":"ResponseStarted","requestURI":"/api/v1/pods?watch=1","verb":"watch","user":{"username":"system:serviceaccount:a:op"}}
{"kind":"Event","level":"Metadata","stage":"ResponseComplete","requestURI":"/apis/apps/v1/namespaces/a/statefulsets/x","verb":"patch","user":{"username":"system:serviceaccount:a:op"},"responseStatus":{"code":403}}
{"kind":"Event","truncated`
	if err := os.WriteFile(cp.audit.log, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := cp.ServiceAccountRequests()
	if err != nil || len(all) != 4 {
		t.Fatalf("ServiceAccountRequests = %v, %v; want 4 requests", all, err)
	}
	forbidden, err := cp.ForbiddenRequests()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range forbidden {
		got = append(got, r.String())
	}
	want := []string{
		"system:serviceaccount:a:op watch /api/v1/secrets -> 403",
		"system:serviceaccount:a:op patch /apis/apps/v1/namespaces/a/statefulsets/x -> 403",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ForbiddenRequests:\n got %q\nwant %q", got, want)
	}
}

func TestPodDeletesNamesEveryDeleterAndItsPrecondition(t *testing.T) {
	cp := &ControlPlane{audit: auditFiles{log: filepath.Join(t.TempDir(), "audit.log")}}
	log := `{"kind":"Event","level":"Request","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/a/pods/bc-1","verb":"delete","user":{"username":"system:serviceaccount:a:op"},"userAgent":"broker-operator","responseStatus":{"code":200},"requestObject":{"kind":"DeleteOptions","preconditions":{"uid":"u1"}},"stageTimestamp":"2026-12-02T10:00:00.100000Z"}
{"kind":"Event","level":"Request","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/a/pods/bc-1","verb":"delete","user":{"username":"kwok"},"userAgent":"kwok/v0.8.0","responseStatus":{"code":200},"requestObject":{"kind":"DeleteOptions","gracePeriodSeconds":0},"stageTimestamp":"2026-12-02T10:00:00.130000Z"}
{"kind":"Event","level":"Metadata","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/a/pods/bc-1/log","verb":"get","user":{"username":"system:serviceaccount:a:op"},"responseStatus":{"code":200}}
{"kind":"Event","level":"Request","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/a/pods?labelSelector=x","verb":"deletecollection","user":{"username":"admin"},"responseStatus":{"code":200}}
`
	if err := os.WriteFile(cp.audit.log, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	deletes, err := cp.PodDeletes()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range deletes {
		got = append(got, r.String()+" uid="+r.PreconditionUID+" agent="+r.UserAgent+" at="+r.At.Format("05.000"))
	}
	want := []string{
		"system:serviceaccount:a:op delete /api/v1/namespaces/a/pods/bc-1 -> 200 uid=u1 agent=broker-operator at=00.100",
		"kwok delete /api/v1/namespaces/a/pods/bc-1 -> 200 uid= agent=kwok/v0.8.0 at=00.130",
		"admin deletecollection /api/v1/namespaces/a/pods?labelSelector=x -> 200 uid= agent= at=00.000",
	}
	if !slices.Equal(got, want) {
		t.Errorf("PodDeletes:\n got %q\nwant %q", got, want)
	}
	// Requests of users other than ServiceAccounts are not theirs.
	sa, err := cp.ServiceAccountRequests()
	if err != nil || len(sa) != 2 {
		t.Errorf("ServiceAccountRequests = %v, %v; want the operator's 2", sa, err)
	}
}
