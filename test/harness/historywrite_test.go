package harness

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/test/history"
)

func answer(code int, body string) *http.Response {
	h := http.Header{}
	h.Set("Audit-Id", "audit-9")
	return &http.Response{StatusCode: code, Header: h, Body: io.NopCloser(strings.NewReader(body))}
}

// A write's event names its object (from the answer, for a generated name), the precondition
// it sent, and the answer; the caller still reads the whole answer.
func TestWriteEventAndAnswer(t *testing.T) {
	create, err := http.NewRequest(http.MethodPost, "/api/v1/namespaces/ns/events", strings.NewReader(`{"metadata":{"generateName":"bc-"}}`))
	if err != nil {
		t.Fatal(err)
	}
	e := WriteEvent(create, Classify(create))
	resp := answer(http.StatusCreated, `{"kind":"Event","metadata":{"name":"bc-x1","namespace":"ns","uid":"u","resourceVersion":"8"}}`)
	body := Answer(&e, resp, nil)
	want := history.Event{Kind: history.KindWrite, Key: history.Key{Resource: "events", Namespace: "ns", Name: "bc-x1"}, Verb: "create",
		UID: "u", RV: "8", Code: http.StatusCreated, AuditID: "audit-9"}
	if e != want {
		t.Errorf("create recorded as %+v, want %+v", e, want)
	}
	if rest, _ := io.ReadAll(resp.Body); string(rest) != string(body) || len(body) == 0 {
		t.Errorf("the caller reads %q, Answer returned %q", rest, body)
	}

	del, err := http.NewRequest(http.MethodDelete, "/apis/apps/v1/namespaces/ns/statefulsets/bc", strings.NewReader(`{"preconditions":{"resourceVersion":"7"}}`))
	if err != nil {
		t.Fatal(err)
	}
	e = WriteEvent(del, Classify(del))
	Answer(&e, answer(http.StatusConflict, `{"kind":"Status","code":409}`), nil)
	if e.Precondition != "7" || e.Code != http.StatusConflict || e.RV != "" || e.Key.Name != "bc" {
		t.Errorf("refused delete recorded as %+v", e)
	}
	e = WriteEvent(del, Classify(del))
	Answer(&e, nil, errors.New("connection refused"))
	if e.Code != 0 || e.Err != "connection refused" {
		t.Errorf("unanswered delete recorded as %+v", e)
	}
}

// A delete's answer says the object is gone when it is a Status of success naming the UID, or
// the object itself answered 200 with no deletionTimestamp; a graceful delete (the object with
// a deletionTimestamp), a 202, a refusal or another verb say nothing of the kind.
func TestDeletedUID(t *testing.T) {
	del := history.Event{Verb: VerbDelete, Code: http.StatusOK}
	for _, tt := range []struct {
		name   string
		e      history.Event
		answer string
		uid    string
		gone   bool
	}{
		{"status naming the uid", del, `{"kind":"Status","status":"Success","details":{"name":"bc","uid":"s-1"}}`, "s-1", true},
		{"status without a uid", del, `{"kind":"Status","status":"Success","details":{"name":"bc"}}`, "", false},
		{"the object, removed", del, `{"kind":"Pod","metadata":{"name":"p","uid":"p-1"}}`, "p-1", true},
		{"the object, graceful", del, `{"kind":"Pod","metadata":{"name":"p","uid":"p-1","deletionTimestamp":"2026-12-02T02:19:00Z"}}`, "", false},
		{"accepted, not done", history.Event{Verb: VerbDelete, Code: http.StatusAccepted}, `{"kind":"Pod","metadata":{"uid":"p-1"}}`, "", false},
		{"refused", history.Event{Verb: VerbDelete, Code: http.StatusConflict}, `{"kind":"Status","status":"Failure"}`, "", false},
		{"not a delete", history.Event{Verb: VerbPatch, Code: http.StatusOK}, `{"kind":"Pod","metadata":{"uid":"p-1"}}`, "", false},
		{"no answer", del, ``, "", false},
	} {
		if uid, gone := DeletedUID(tt.e, []byte(tt.answer)); uid != tt.uid || gone != tt.gone {
			t.Errorf("%s: DeletedUID = %q, %v; want %q, %v", tt.name, uid, gone, tt.uid, tt.gone)
		}
	}
}
