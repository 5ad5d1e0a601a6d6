package soak

import (
	"regexp"
	"strings"
	"time"
)

// Reconcile is what one reconcile read, as the operator logs it at -v=4 (pkg/controller's
// "Reconciling" line): the BrokerCluster's and the StatefulSet's resourceVersions ("" when the
// StatefulSet did not exist), and when the line was logged: after both reads, before any write
// of the same reconcile.
type Reconcile struct {
	At                  time.Time
	Namespace, Name     string
	BrokerClusterRV     string
	StatefulSetRV       string
	DecommissioningNode string
}

// klogHeader is klog's text header: severity, MMDD, time to the microsecond, thread, file:line.
var klogHeader = regexp.MustCompile(`^[IWEF](\d{4} \d{2}:\d{2}:\d{2}\.\d{6})\s+\d+ [^ ]+\] `)

// keyValue is one quoted key="value" pair of a structured line.
var keyValue = regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)

// ParseReconcile parses one line of the operator's log. now gives the year and location the
// header leaves out (klog writes local time).
func ParseReconcile(line string, now time.Time) (Reconcile, bool) {
	m := klogHeader.FindStringSubmatch(line)
	if m == nil || !strings.Contains(line, `] "Reconciling" `) {
		return Reconcile{}, false
	}
	at, err := time.ParseInLocation("0102 15:04:05.000000", m[1], now.Location())
	if err != nil {
		return Reconcile{}, false
	}
	at = at.AddDate(now.Year(), 0, 0)
	if at.After(now.Add(24 * time.Hour)) { // a line from December read in January
		at = at.AddDate(-1, 0, 0)
	}
	r := Reconcile{At: at}
	seen := 0
	for _, kv := range keyValue.FindAllStringSubmatch(line[len(m[0]):], -1) {
		switch kv[1] {
		case "brokercluster":
			ns, name, ok := strings.Cut(kv[2], "/")
			if !ok {
				return Reconcile{}, false
			}
			r.Namespace, r.Name = ns, name
			seen++
		case "brokerClusterResourceVersion":
			r.BrokerClusterRV = kv[2]
			seen++
		case "statefulSetResourceVersion":
			r.StatefulSetRV = kv[2]
			seen++
		case "decommissioningBroker":
			r.DecommissioningNode = kv[2]
		}
	}
	return r, seen == 3
}
