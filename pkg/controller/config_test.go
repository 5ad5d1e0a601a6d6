package controller

import (
	"flag"
	"strings"
	"testing"

	kubefake "k8s.io/client-go/kubernetes/fake"

	brokerfake "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/fake"
)

func TestReadStrategyFlag(t *testing.T) {
	for _, s := range []ReadStrategy{ReadWriteback, ReadCache, ReadUncached} {
		got, err := ParseReadStrategy(strings.ToUpper(s.String()))
		if err != nil || got != s {
			t.Errorf("ParseReadStrategy(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := ParseReadStrategy("eventual"); err == nil || !strings.Contains(err.Error(), "writeback, cache, uncached") {
		t.Errorf("bad strategy: error %v should list the choices", err)
	}
	var s ReadStrategy
	if s != ReadWriteback {
		t.Error("the zero ReadStrategy is not writeback")
	}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.Var(&s, "read-strategy", "")
	if err := fs.Parse([]string{"-read-strategy=uncached"}); err != nil || s != ReadUncached {
		t.Errorf("flag parse: %v, %v", s, err)
	}
	if got := ReadStrategy(7).String(); got != "ReadStrategy(7)" {
		t.Errorf("String of an unknown strategy: %q", got)
	}
}

func TestConfigValidation(t *testing.T) {
	valid := func() Config {
		return Config{KubeClient: kubefake.NewClientset(), BrokerClient: brokerfake.NewClientset()}
	}
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr string
	}{
		{"defaults", func(*Config) {}, ""},
		{"no kube client", func(c *Config) { c.KubeClient = nil }, "KubeClient is required"},
		{"no broker client", func(c *Config) { c.BrokerClient = nil }, "BrokerClient is required"},
		{"bad namespace", func(c *Config) { c.Namespaces = []string{"Team_A"} }, `namespace "Team_A"`},
		{"namespace twice", func(c *Config) { c.Namespaces = []string{"a", "a"} }, "listed twice"},
		{"bad template", func(c *Config) { c.AdminAddressTemplate = "ftp://{{.Name}}" }, "AdminAddressTemplate"},
		{"negative timeout", func(c *Config) { c.AdminTimeout = -1 }, "AdminTimeout"},
		{"unknown strategy", func(c *Config) { *c = c.WithReadStrategy(9) }, "ReadStrategy 9"},
		{"negative poll", func(c *Config) { c.DrainPollInterval = -1 }, "DrainPollInterval"},
		{"negative TTL", func(c *Config) { c.WritebackTTL = -1 }, "WritebackTTL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := valid()
			tt.edit(&cfg)
			c, err := NewController(cfg)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.cfg.AdminTimeout != DefaultAdminTimeout || c.cfg.DrainPollInterval != DefaultDrainPollInterval || c.cfg.Clock == nil || c.cfg.Recorder == nil {
					t.Errorf("defaults not applied: %+v", c.cfg)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
}

func TestNamespacesDispatch(t *testing.T) {
	c, err := NewController(Config{KubeClient: kubefake.NewClientset(), BrokerClient: brokerfake.NewClientset(), Namespaces: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.cacheFor("a") == nil || c.cacheFor("b") == nil || c.cacheFor("a") == c.cacheFor("b") {
		t.Error("each watched namespace needs its own caches")
	}
	if c.cacheFor("c") != nil {
		t.Error("an unwatched namespace has caches")
	}
	if res, err := c.sync(t.Context(), "c/x"); err != nil || res.RequeueAfter != 0 {
		t.Errorf("sync of an unwatched namespace: %+v, %v", res, err)
	}
	if n := len(c.Overlays()); n != 14 {
		t.Errorf("%d overlays, want 7 resources × 2 namespaces", n)
	}

	all, err := NewController(Config{KubeClient: kubefake.NewClientset(), BrokerClient: brokerfake.NewClientset()})
	if err != nil {
		t.Fatal(err)
	}
	if all.cacheFor("anything") == nil {
		t.Error("with no namespaces listed every namespace is watched")
	}
}
