package framework

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The apiserver writes an audit log of every request a ServiceAccount makes, of every pod
// eviction, and of every pod delete by anyone, with its options (grace period, UID precondition). A controller often only
// logs a Forbidden answer (an informer retries its list for ever), so a test that must fail on any
// forbidden request reads them from here; a pod that vanishes is traced to who deleted it.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Request
  verbs: ["delete", "deletecollection"]
  resources: [{group: "", resources: ["pods"]}]
- level: Metadata
  resources: [{group: "", resources: ["pods/eviction"]}]
- level: Metadata
  userGroups: ["system:serviceaccounts"]
- level: None
`

// Request is one audited request.
type Request struct {
	User       string
	Verb       string
	RequestURI string
	Code       int32
	// UserAgent names the client program (e.g. "kwok/v0.8.0", "kube-controller-manager/...").
	UserAgent string
	// At is when the apiserver finished answering.
	At time.Time
	// PreconditionUID is the UID a delete required the object to have; "" for none. Only pod
	// deletes are audited with their options.
	PreconditionUID string
}

func (r Request) String() string {
	return fmt.Sprintf("%s %s %s -> %d", r.User, r.Verb, r.RequestURI, r.Code)
}

type auditFiles struct {
	policy, log string
}

func writeAuditPolicy(dir string) (auditFiles, error) {
	files := auditFiles{policy: filepath.Join(dir, "audit-policy.yaml"), log: filepath.Join(dir, "logs", "audit.log")}
	return files, os.WriteFile(files.policy, []byte(auditPolicy), 0o644)
}

// AuditLogPath is the apiserver's audit log (JSON lines), for a reader of its own
// (test/history's ParseAudit).
func (cp *ControlPlane) AuditLogPath() string { return cp.audit.log }

// ServiceAccountRequests returns the requests ServiceAccounts have made so far, in order. The
// apiserver writes an entry once the response is complete, so a request answered a moment ago
// may be missing.
func (cp *ControlPlane) ServiceAccountRequests() ([]Request, error) {
	all, err := cp.auditedRequests()
	var out []Request
	for _, r := range all {
		if strings.HasPrefix(r.User, serviceAccountUserPrefix) {
			out = append(out, r)
		}
	}
	return out, err
}

// serviceAccountUserPrefix starts the user name of every ServiceAccount.
const serviceAccountUserPrefix = "system:serviceaccount:"

// PodDeletes returns every pod delete so far, by any user, in order, with its UID precondition.
// The pods of the fake Nodes are finished by the user "pod-finisher", always with the pod's UID.
func (cp *ControlPlane) PodDeletes() ([]Request, error) {
	all, err := cp.auditedRequests()
	var out []Request
	for _, r := range all {
		if (r.Verb == "delete" || r.Verb == "deletecollection") && isPodsURI(r.RequestURI) {
			out = append(out, r)
		}
	}
	return out, err
}

// Evictions returns every pod eviction asked for so far, by any user, in order, with the
// apiserver's answer.
func (cp *ControlPlane) Evictions() ([]Request, error) {
	all, err := cp.auditedRequests()
	var out []Request
	for _, r := range all {
		path, _, _ := strings.Cut(r.RequestURI, "?")
		if r.Verb == "create" && strings.HasSuffix(path, "/eviction") {
			out = append(out, r)
		}
	}
	return out, err
}

// isPodsURI reports whether a request URI addresses pods (a collection or one pod, no subresource).
func isPodsURI(uri string) bool {
	path, _, _ := strings.Cut(uri, "?")
	segs := strings.Split(strings.Trim(path, "/"), "/")
	n := len(segs)
	return (n >= 3 && segs[n-1] == "pods") || (n >= 4 && segs[n-2] == "pods")
}

// auditedRequests reads every entry of the audit log.
func (cp *ControlPlane) auditedRequests() ([]Request, error) {
	f, err := os.Open(cp.audit.log)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var requests []Request
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for scanner.Scan() {
		var event struct {
			User struct {
				Username string `json:"username"`
			} `json:"user"`
			Verb           string    `json:"verb"`
			RequestURI     string    `json:"requestURI"`
			UserAgent      string    `json:"userAgent"`
			StageTimestamp time.Time `json:"stageTimestamp"`
			ResponseStatus *struct {
				Code int32 `json:"code"`
			} `json:"responseStatus"`
			RequestObject *struct {
				Preconditions *struct {
					UID string `json:"uid"`
				} `json:"preconditions"`
			} `json:"requestObject"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &event); err != nil {
			continue // a line being written right now
		}
		r := Request{User: event.User.Username, Verb: event.Verb, RequestURI: event.RequestURI, UserAgent: event.UserAgent, At: event.StageTimestamp}
		if o := event.RequestObject; o != nil && o.Preconditions != nil {
			r.PreconditionUID = o.Preconditions.UID
		}
		if event.ResponseStatus != nil {
			r.Code = event.ResponseStatus.Code
		}
		requests = append(requests, r)
	}
	return requests, scanner.Err()
}

// ForbiddenRequests returns the requests of ServiceAccounts that RBAC refused so far.
func (cp *ControlPlane) ForbiddenRequests() ([]Request, error) {
	all, err := cp.ServiceAccountRequests()
	var forbidden []Request
	for _, r := range all {
		if r.Code == 403 {
			forbidden = append(forbidden, r)
		}
	}
	return forbidden, err
}
