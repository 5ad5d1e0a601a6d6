package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/client-go/features"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
)

// featureGateLogEnv makes the test binary, run again by TestFeatureGatesStayOutOfTheLog, log at
// -v=2 on stderr and read every client-go feature gate. "main" starts as the operator does
// (realMain, which stops at the missing kubeconfig); "default" keeps client-go's own gates.
const featureGateLogEnv = "BROKER_OPERATOR_FEATURE_GATE_LOG"

func TestMain(m *testing.M) {
	if mode := os.Getenv(featureGateLogEnv); mode != "" {
		os.Exit(readFeatureGatesAtV2(mode))
	}
	os.Exit(m.Run())
}

// readFeatureGatesAtV2 runs in a fresh process, because client-go reads its gates' environment
// (and logs) only once per process.
func readFeatureGatesAtV2(mode string) int {
	switch mode {
	case "main":
		realMain([]string{"-v=2", "--kubeconfig=" + os.DevNull + "/none"})
	case "default":
		fs := flag.NewFlagSet("default", flag.ContinueOnError)
		klog.InitFlags(fs)
		if err := fs.Parse([]string{"-v=2"}); err != nil {
			return 1
		}
	}
	g, err := newFeatureGates()
	if err != nil {
		klog.Background().Error(err, "newFeatureGates")
		return 1
	}
	for name := range g.known {
		features.FeatureGates().Enabled(name)
	}
	klog.Flush()
	return 0
}

// client-go logs about ten "Feature gate default state" lines at -v=2; the operator installs its
// own gates at start-up, and none reach its log below -v=4.
func TestFeatureGatesStayOutOfTheLog(t *testing.T) {
	run := func(mode string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), featureGateLogEnv+"="+mode)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, stderr.String())
		}
		return stderr.String()
	}
	// The check below would pass vacuously if client-go stopped logging; this one notices.
	if out := run("default"); !strings.Contains(out, "Feature gate default state") {
		t.Fatalf("client-go's own gates no longer log their state at -v=2; this test proves nothing. Their log:\n%s", out)
	}
	out := run("main")
	if !strings.Contains(out, `"Starting"`) {
		t.Fatalf("the operator's start-up log at -v=2 is missing:\n%s", out)
	}
	if strings.Contains(out, "Feature gate") {
		t.Fatalf("feature gate states reach the operator's log at -v=2:\n%s", out)
	}
}

// The operator's gates read KUBE_FEATURE_<name> as client-go's do, log their states at V(4),
// and turn bad settings into errors that keep the default.
func TestFeatureGatesReadTheEnvironment(t *testing.T) {
	g, err := newFeatureGates()
	if err != nil {
		t.Fatal(err)
	}
	var unlocked, locked features.Feature
	for name, spec := range g.known {
		if spec.LockToDefault {
			locked = name
		} else if unlocked == "" || name < unlocked {
			unlocked = name
		}
	}
	if unlocked == "" {
		t.Fatal("client-go has no feature that can be set")
	}
	env := map[string]string{"KUBE_FEATURE_" + string(unlocked): boolString(!g.known[unlocked].Default)}
	if locked != "" {
		env["KUBE_FEATURE_"+string(locked)] = boolString(!g.known[locked].Default)
	}
	var log bytes.Buffer
	g.loadEnv(textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(4), textlogger.Output(&log))), func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	})
	if g.Enabled(unlocked) == g.known[unlocked].Default {
		t.Errorf("KUBE_FEATURE_%s did not change the feature", unlocked)
	}
	if locked != "" && g.Enabled(locked) != g.known[locked].Default {
		t.Errorf("KUBE_FEATURE_%s changed a feature locked to its default", locked)
	}
	if !strings.Contains(log.String(), "Feature gate set from the environment") {
		t.Errorf("the setting is not logged at V(4):\n%s", log.String())
	}

	bad, err := newFeatureGates()
	if err != nil {
		t.Fatal(err)
	}
	log.Reset()
	bad.loadEnv(textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(0), textlogger.Output(&log))), func(k string) (string, bool) {
		return "maybe", k == "KUBE_FEATURE_"+string(unlocked)
	})
	if bad.Enabled(unlocked) != bad.known[unlocked].Default {
		t.Error("a value that is not a boolean changed the feature")
	}
	if !strings.Contains(log.String(), "not a boolean") || !strings.Contains(log.String(), string(unlocked)) {
		t.Errorf("a bad value is not reported at -v=0:\n%s", log.String())
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
