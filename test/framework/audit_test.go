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
