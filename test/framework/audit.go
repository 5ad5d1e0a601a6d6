package framework

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// The apiserver writes an audit log of every request a ServiceAccount makes. A controller often
// only logs a Forbidden answer (an informer retries its list for ever), so a test that must fail
// on any forbidden request reads them from here.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
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

// ServiceAccountRequests returns the requests ServiceAccounts have made so far, in order. The
// apiserver writes an entry once the response is complete, so a request answered a moment ago
// may be missing.
func (cp *ControlPlane) ServiceAccountRequests() ([]Request, error) {
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
			Verb           string `json:"verb"`
			RequestURI     string `json:"requestURI"`
			ResponseStatus *struct {
				Code int32 `json:"code"`
			} `json:"responseStatus"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &event); err != nil {
			continue // a line being written right now
		}
		r := Request{User: event.User.Username, Verb: event.Verb, RequestURI: event.RequestURI}
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
