package framework

import "testing"

// StartForTest starts a control plane for one test and stops it when the test ends. If the test
// failed, the component logs are kept and their directory is logged.
func StartForTest(t testing.TB, opts Options) *ControlPlane {
	t.Helper()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	cp, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			if err := cp.StopKeepingLogs(); err != nil {
				t.Errorf("stop control plane: %v", err)
			}
			t.Logf("control plane logs kept in %s", cp.LogDir)
			return
		}
		if err := cp.Stop(); err != nil {
			t.Errorf("stop control plane: %v", err)
		}
	})
	return cp
}
