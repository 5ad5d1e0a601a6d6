package chartcheck

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/releaseutil"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

const (
	chartDir  = "../../charts/broker-operator"
	deployDir = "../../deploy"

	// The release that renders what deploy/ holds: its name is the objects' name, its namespace
	// the one deploy/kustomization.yaml sets.
	releaseName      = "broker-operator"
	releaseNamespace = "broker-operator-system"
)

// object is one rendered manifest, as JSON decodes it, so that numbers compare alike whichever
// renderer produced them.
type object map[string]any

func (o object) key() string {
	ns, _ := dig(o, "metadata", "namespace").(string)
	name, _ := dig(o, "metadata", "name").(string)
	return fmt.Sprintf("%s %s %s/%s", o["apiVersion"], o["kind"], ns, name)
}

func (o object) kind() string { s, _ := o["kind"].(string); return s }

// renderChart renders the chart as `helm template --include-crds` does, with vals over the
// chart's values.
func renderChart(vals map[string]any) (map[string]object, error) {
	chrt, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	return render(chrt, vals)
}

func render(chrt *chart.Chart, vals map[string]any) (map[string]object, error) {
	install := action.NewInstall(&action.Configuration{})
	install.DryRun = true
	install.ClientOnly = true
	install.IncludeCRDs = true
	install.ReleaseName = releaseName
	install.Namespace = releaseNamespace
	rel, err := install.Run(chrt, vals)
	if err != nil {
		return nil, err
	}
	var docs []string
	for _, doc := range releaseutil.SplitManifests(rel.Manifest) {
		docs = append(docs, doc)
	}
	return decode(docs)
}

// renderKustomize renders deploy/ as `kubectl kustomize deploy/` does.
func renderKustomize(t *testing.T) map[string]object { return renderKustomizeDir(t, deployDir) }

// renderKustomizeDir renders the kustomization in dir.
func renderKustomizeDir(t *testing.T, dir string) map[string]object {
	t.Helper()
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var docs []string
	for _, r := range resources.Resources() {
		out, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(out))
	}
	objs, err := decode(docs)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func decode(docs []string) (map[string]object, error) {
	objs := map[string]object{}
	for _, doc := range docs {
		data, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("%w in:\n%s", err, doc)
		}
		var o object
		if err := json.Unmarshal(data, &o); err != nil {
			return nil, err
		}
		if o == nil {
			continue // an empty document
		}
		if _, dup := objs[o.key()]; dup {
			return nil, fmt.Errorf("%s rendered twice", o.key())
		}
		objs[o.key()] = o
	}
	return objs, nil
}

// helmLabels are the labels the chart adds for Helm's bookkeeping; they differ per release and
// chart version, so the comparison with deploy/ leaves them out.
var helmLabels = []string{
	"app.kubernetes.io/instance",
	"app.kubernetes.io/version",
	"app.kubernetes.io/managed-by",
	"helm.sh/chart",
}

// withoutHelmLabels returns a copy of o without helmLabels on the object and its pod template.
func withoutHelmLabels(o object) object {
	var out object
	data, _ := json.Marshal(o)
	_ = json.Unmarshal(data, &out)
	strip := func(m any) {
		md, _ := m.(map[string]any)
		labels, _ := md["labels"].(map[string]any)
		for _, l := range helmLabels {
			delete(labels, l)
		}
	}
	strip(out["metadata"])
	if spec, ok := out["spec"].(map[string]any); ok {
		if tmpl, ok := spec["template"].(map[string]any); ok {
			strip(tmpl["metadata"])
		}
	}
	return out
}

func toYAML(o any) string {
	out, err := yaml.Marshal(o)
	if err != nil {
		return err.Error()
	}
	return string(out)
}

func sortedKeys(m map[string]object) []string { return slices.Sorted(maps.Keys(m)) }

func byKind(objs map[string]object, kind string) []object {
	var out []object
	for _, k := range sortedKeys(objs) {
		if objs[k].kind() == kind {
			out = append(out, objs[k])
		}
	}
	return out
}

// deployment returns the one Deployment, and its operator container.
func deployment(t *testing.T, objs map[string]object) (object, map[string]any) {
	t.Helper()
	ds := byKind(objs, "Deployment")
	if len(ds) != 1 {
		t.Fatalf("want one Deployment, got %d", len(ds))
	}
	containers := dig(ds[0], "spec", "template", "spec", "containers").([]any)
	if len(containers) != 1 {
		t.Fatalf("want one container, got %d", len(containers))
	}
	return ds[0], containers[0].(map[string]any)
}

func dig(v any, path ...string) any {
	if o, ok := v.(object); ok {
		v = map[string]any(o)
	}
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func args(container map[string]any) []string {
	var out []string
	for _, a := range container["args"].([]any) {
		out = append(out, a.(string))
	}
	return out
}

func describe(objs map[string]object) string {
	return strings.Join(sortedKeys(objs), "\n  ")
}
