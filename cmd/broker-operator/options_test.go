package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"
)

func parse(t *testing.T, args ...string) (*options, error) {
	t.Helper()
	o := defaultOptions()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	o.addFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return o, o.validate()
}

func TestDefaultsAreValid(t *testing.T) {
	if _, err := parse(t); err != nil {
		t.Fatalf("defaults rejected: %v", err)
	}
}

// A template of host names per broker, as a user outside the cluster's DNS would write one.
func TestAdminAddressTemplateTakesHostNamesPerBroker(t *testing.T) {
	if _, err := parse(t, "--admin-address-template=https://{{.Name}}-{{.Ordinal}}.brokers.example.com:{{.Port}}"); err != nil {
		t.Fatal(err)
	}
}

// The operator reaches the brokers' Kafka listeners through a proxy or port-forward, one port a
// broker, when it runs where the pods' names do not resolve.
func TestKafkaAddressTemplateTakesHostPort(t *testing.T) {
	if _, err := parse(t, "--kafka-address-template=127.0.0.1:{{add 19092 .Ordinal}}"); err != nil {
		t.Fatal(err)
	}
}

func TestNamespaceFlagRepeats(t *testing.T) {
	o, err := parse(t, "--namespace=a", "--namespace", "b")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(o.namespaces, ","); got != "a,b" {
		t.Fatalf("namespaces = %q, want a,b", got)
	}
}

func TestInvalidFlagsAreRejectedWithAClearMessage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--workers=0"}, "--workers must be at least 1"},
		{[]string{"--namespace=Not_A_Namespace"}, `--namespace "Not_A_Namespace" is not a valid namespace name`},
		{[]string{"--leader-elect-lease-duration=5s", "--leader-elect-renew-deadline=10s"}, "must be greater than --leader-elect-renew-deadline"},
		{[]string{"--leader-elect-renew-deadline=1s", "--leader-elect-retry-period=2s"}, "must be greater than --leader-elect-retry-period"},
		{[]string{"--leader-elect-lease-name=Bad Name"}, "--leader-elect-lease-name"},
		{[]string{"--metrics-bind-address=8080"}, "--metrics-bind-address \"8080\": want host:port"},
		{[]string{"--health-probe-bind-address=localhost"}, "--health-probe-bind-address"},
		{[]string{"--admin-address-template={{.Nope"}, "--admin-address-template"},
		{[]string{"--admin-address-template=http://proxy:8080/{{.Namespace}}/{{.Name}}/{{.Ordinal}}"}, "want scheme://host:port with no path"},
		{[]string{"--kafka-address-template=http://kafka:9092"}, "--kafka-address-template"},
		{[]string{"--kafka-address-template={{.Nope}}:9092"}, "--kafka-address-template"},
		{[]string{"--read-strategy=eventually"}, "--read-strategy"},
		{[]string{"--writeback-ttl=0s"}, "--writeback-ttl must be positive"},
		{[]string{"--admin-timeout=-1s"}, "--admin-timeout must be positive"},
		{[]string{"--admin-deadline=5s"}, "--admin-deadline 5s is shorter than --admin-timeout 10s"},
		{[]string{"--drain-poll-interval=0s"}, "--drain-poll-interval must be positive"},
		{[]string{"--max-retry-delay=0s"}, "--max-retry-delay must be positive"},
		{[]string{"--shutdown-timeout=0s"}, "--shutdown-timeout must be positive"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := parse(t, tc.args...)
			if err == nil {
				t.Fatalf("accepted %v", tc.args)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestAllProblemsAreReportedAtOnce(t *testing.T) {
	_, err := parse(t, "--workers=0", "--writeback-ttl=0s")
	if err == nil || !strings.Contains(err.Error(), "--workers") || !strings.Contains(err.Error(), "--writeback-ttl") {
		t.Fatalf("want both problems reported, got %v", err)
	}
}

func TestLeaderElectionOffSkipsItsChecks(t *testing.T) {
	if _, err := parse(t, "--leader-elect=false", "--leader-elect-lease-duration=1s"); err != nil {
		t.Fatalf("lease settings checked with leader election off: %v", err)
	}
}

func TestEndpointsCanBeTurnedOff(t *testing.T) {
	if _, err := parse(t, "--metrics-bind-address=0", "--health-probe-bind-address=0"); err != nil {
		t.Fatal(err)
	}
}

func TestHelpDocumentsEveryFlag(t *testing.T) {
	var out bytes.Buffer
	fs := flag.NewFlagSet("broker-operator", flag.ContinueOnError)
	defaultOptions().addFlags(fs)
	fs.SetOutput(&out)
	fs.PrintDefaults()
	fs.VisitAll(func(f *flag.Flag) {
		if f.Usage == "" {
			t.Errorf("flag --%s has no help text", f.Name)
		}
		if !strings.Contains(out.String(), "-"+f.Name) {
			t.Errorf("--help does not list --%s", f.Name)
		}
	})
}
