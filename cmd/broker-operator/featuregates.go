package main

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"

	"k8s.io/client-go/features"
	"k8s.io/klog/v2"
)

// featureGates replace client-go's default feature gates. Those log the state of every gate at
// V(1) the first time one is read ("Feature gate default state", about ten lines in an
// operator's start-up log at -v=2; k8s.io/client-go/features/envvar.go). These read the same
// KUBE_FEATURE_<name> environment variables, once, and log the states at V(4). client-go's
// documented way to take control of its gates is AddFeaturesToExistingFeatureGates followed by
// ReplaceFeatureGates (k8s.io/client-go/features/features.go).
type featureGates struct {
	known   map[features.Feature]features.FeatureSpec
	enabled map[features.Feature]bool // fixed once installed, so reads need no lock
}

var (
	_ features.Gates    = (*featureGates)(nil)
	_ features.Registry = (*featureGates)(nil)
)

// newFeatureGates returns gates that know client-go's features, at their defaults.
func newFeatureGates() (*featureGates, error) {
	g := &featureGates{known: map[features.Feature]features.FeatureSpec{}, enabled: map[features.Feature]bool{}}
	if err := features.AddFeaturesToExistingFeatureGates(g); err != nil {
		return nil, fmt.Errorf("client-go feature gates: %w", err)
	}
	return g, nil
}

// Add registers features; client-go calls it from AddFeaturesToExistingFeatureGates.
func (g *featureGates) Add(specs map[features.Feature]features.FeatureSpec) error {
	for name, spec := range specs {
		if _, dup := g.known[name]; dup {
			return fmt.Errorf("feature gate %s registered twice", name)
		}
		g.known[name] = spec
		g.enabled[name] = spec.Default
	}
	return nil
}

// Enabled reports a feature's state; one client-go does not know is off.
func (g *featureGates) Enabled(key features.Feature) bool {
	return g.enabled[key]
}

// loadEnv applies KUBE_FEATURE_<name> variables as client-go's default gates do: a value
// strconv.ParseBool accepts sets the feature unless it is locked to its default. A bad value
// is logged as an error and leaves the default. Every state is logged at V(4).
func (g *featureGates) loadEnv(logger klog.Logger, lookupEnv func(string) (string, bool)) {
	for _, name := range slices.Sorted(maps.Keys(g.known)) {
		spec := g.known[name]
		value, set := lookupEnv("KUBE_FEATURE_" + string(name))
		if !set {
			logger.V(4).Info("Feature gate default state", "feature", name, "enabled", spec.Default)
			continue
		}
		on, err := strconv.ParseBool(value)
		switch {
		case err != nil:
			logger.Error(err, "Ignoring a feature gate setting that is not a boolean", "feature", name, "value", value, "enabled", spec.Default)
		case spec.LockToDefault && on != spec.Default:
			logger.Error(nil, "Ignoring a setting of a feature gate locked to its default", "feature", name, "value", value, "enabled", spec.Default)
		default:
			g.enabled[name] = on
			logger.V(4).Info("Feature gate set from the environment", "feature", name, "enabled", on)
		}
	}
}

// installFeatureGates makes client-go use gates that log below -v=4. Call it before anything
// in client-go runs.
func installFeatureGates(logger klog.Logger) error {
	g, err := newFeatureGates()
	if err != nil {
		return err
	}
	g.loadEnv(logger, os.LookupEnv)
	features.ReplaceFeatureGates(g)
	return nil
}
