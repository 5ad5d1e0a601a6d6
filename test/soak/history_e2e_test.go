//go:build e2e

package soak

import (
	"fmt"
	"os"
	"slices"

	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/history"
)

// checkHistories checks the histories of every operator process the run started, with the
// apiserver's audit log for the order of writes across a failover. Call it once every process
// has exited and its log has been read, and after judgeRestarts (the outages no call shows).
func (h *rig) checkHistories() (*history.Report, error) {
	h.mu.Lock()
	procs := slices.Clone(h.procs)
	h.mu.Unlock()
	var histories []*history.History
	for _, p := range procs {
		if p.hist != nil {
			histories = append(histories, p.hist.History())
		}
	}
	f, err := os.Open(h.cp.AuditLogPath())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	audit, err := history.ParseAudit(f)
	if err != nil {
		return nil, err
	}
	user := fmt.Sprintf("system:serviceaccount:%s:%s", brokersim.OperatorNamespace, brokersim.OperatorServiceAccount)
	h.mu.Lock()
	outages := slices.Clone(h.unavailable)
	h.mu.Unlock()
	return history.Check(history.Input{Histories: histories, Audit: audit, OperatorUser: user, Outages: outages}), nil
}
