package soak

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/broker-operator/broker-operator/test/history"
)

// traceField is one key=value of a klog structured line: the value quoted (Go syntax) or bare.
var traceField = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|[^ ]*)`)

// Messages of pkg/controller's LogTracer.
const (
	tracedRead  = `] "Traced read" `
	tracedAdmin = `] "Traced admin call" `
)

// ParseTrace parses one line of the operator's log written by pkg/controller's LogTracer (at
// -v=4): a read ("Traced read") or an irreversible admin call ("Traced admin call"), as a
// history event with its worker, reconcile, key and outcome. Its Start and End are the line's,
// on the system's monotonic clock (controller.TraceNow). traced is false for any other line;
// ok is false for a traced line that lacks a field or holds a malformed one, which the
// caller must count (ProcessHistory.Unreadable), not drop.
func ParseTrace(line string) (e history.Event, traced, ok bool) {
	var rest string
	switch {
	case strings.Contains(line, tracedRead):
		e.Kind, rest = history.KindRead, line[strings.Index(line, tracedRead)+len(tracedRead):]
	case strings.Contains(line, tracedAdmin):
		e.Kind, rest = history.KindAdmin, line[strings.Index(line, tracedAdmin)+len(tracedAdmin):]
	default:
		return e, false, false
	}
	f := map[string]string{}
	for _, kv := range traceField.FindAllStringSubmatch(rest, -1) {
		v := kv[2]
		if strings.HasPrefix(v, `"`) {
			var err error
			if v, err = strconv.Unquote(v); err != nil {
				return e, true, false
			}
		}
		f[kv[1]] = v
	}
	e, ok = fillTrace(e, f)
	return e, true, ok
}

// fillTrace sets e's fields from a traced line's fields f.
func fillTrace(e history.Event, f map[string]string) (history.Event, bool) {
	worker, err1 := strconv.Atoi(f["worker"])
	reconcile, err2 := strconv.ParseUint(f["reconcile"], 10, 64)
	start, err3 := strconv.ParseInt(f["start"], 10, 64)
	end, err4 := strconv.ParseInt(f["end"], 10, 64)
	ns, name, named := strings.Cut(f["object"], "/")
	if !named {
		ns, name = "", f["object"]
	}
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || f["resource"] == "" || name == "" || end < start {
		return e, false
	}
	e.Worker, e.Reconcile, e.Start, e.End = worker, reconcile, start, end
	e.Key = history.Key{Resource: f["resource"], Namespace: ns, Name: name}
	if e.Kind == history.KindRead {
		found, err := strconv.ParseBool(f["found"])
		e.Found, e.UID, e.RV = found, f["uid"], f["resourceVersion"]
		return e, err == nil
	}
	e.Verb, e.Broker, e.Err = f["call"], f["broker"], f["err"]
	if e.Err == "<" { // klog writes a multi-line value on the lines that follow
		e.Err = "(a multi-line error, on the log's next lines)"
	}
	return e, e.Verb != "" && e.Broker != ""
}
