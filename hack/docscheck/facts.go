package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	stdmaps "maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// facts are the names the repository defines: the docs may name only these, and must name
// each of the required ones on some page.
type facts struct {
	flags    map[string]bool // every flag of broker-operator --help
	required map[string]bool // the flags some page must name: all but klog's logging flags

	conditionReasons map[string]bool
	eventReasons     map[string]bool

	fields    map[string]bool // every field path of the CRD's spec and status, "spec.storage.size"
	maps      map[string]bool // field paths whose keys are free (a map): anything under them exists
	fieldsDue map[string]bool // the field paths some page must name: not those inside a Kubernetes type
}

// klogFlags are the logging flags klog.InitFlags adds: --help lists them, klog documents them.
func klogFlags() map[string]bool {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	out := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { out[f.Name] = true })
	return out
}

// requiredFlags are the flags of help that are not klog's.
func requiredFlags(flags map[string]bool) map[string]bool {
	klogs := klogFlags()
	out := map[string]bool{}
	for f := range flags {
		if !klogs[f] {
			out[f] = true
		}
	}
	return out
}

// repoFacts reads the reasons from the controller's source and the fields from the generated CRD.
func repoFacts(root string, flags map[string]bool) (*facts, []problem, error) {
	f := &facts{flags: flags, required: requiredFlags(flags)}
	var problems []problem
	var err error
	f.conditionReasons, f.eventReasons, problems, err = reasons(root, sourceDirs)
	if err != nil {
		return nil, nil, err
	}
	f.fields, f.maps, f.fieldsDue = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range crds {
		crd, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.file)))
		if err != nil {
			return nil, nil, err
		}
		fields, maps, due, err := crdFields(crd, kubernetesFields(c.typ))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", c.file, err)
		}
		// One namespace of paths for every CRD: a page names spec.partitions for BrokerTopics
		// as it names spec.replicas for BrokerClusters.
		stdmaps.Copy(f.fields, fields)
		stdmaps.Copy(f.maps, maps)
		stdmaps.Copy(f.fieldsDue, due)
	}
	return f, problems, nil
}

// crds are the generated CRDs whose fields the docs name, each with its Go type.
var crds = []struct {
	file string
	typ  reflect.Type
}{
	{"deploy/crd/bases/broker-operator.dev_brokerclusters.yaml", reflect.TypeFor[v1alpha1.BrokerCluster]()},
	{"deploy/crd/bases/broker-operator.dev_brokertopics.yaml", reflect.TypeFor[v1alpha1.BrokerTopic]()},
	{"deploy/crd/bases/broker-operator.dev_brokerusers.yaml", reflect.TypeFor[v1alpha1.BrokerUser]()},
}

// crdFile names the CRDs in messages.
const crdFile = "deploy/crd/bases"

// sourceDirs hold the Go files reasons are read from; pkg/generated is left out.
var sourceDirs = []string{"pkg", "cmd", "internal"}

// --- Reasons ---

// A condition reason is the value of a string constant whose name starts with "Reason", declared
// in the Go files of sourceDirs (tests and pkg/generated left out). An event reason is the
// reason argument of a call of an EventRecorder's Event, Eventf or AnnotatedEventf there: a
// constant expression, or one of the expressions dynamicEvents lists with the constants it takes.

// A constSet names constants by their package's directory: "type pkg/x/step.Kind" is every
// constant of that declared type, and "pkg/x/step.ReasonStorage*" every constant of that package
// whose name starts with ReasonStorage ("pkg/x/step.X" alone: that one). A leading "-" takes the
// constants it names away again.
type dynamicEvent struct {
	prefix string   // added in front of each constant's value
	from   []string // constSets, in order
}

const step = "pkg/controller/internal/step"

// dynamicEvents are the event reasons the source computes, by file and expression.
var dynamicEvents = map[string]dynamicEvent{
	// A step's kind is its event's reason (a step told, or the wait a step ended). None is no
	// step; a WaitForLeadershipDrain is never news (StartRestart and EnableMaintenance, which
	// begin it, were told) and ends no Degraded wait. step.Events adds NodeLost.
	"pkg/controller/runner.go: string(s.Kind)": {from: []string{"type " + step + ".Kind", "-" + step + ".None", "-" + step + ".WaitForLeadershipDrain"}},
	"pkg/controller/runner.go: e.Reason":       {from: []string{"type " + step + ".Kind", "-" + step + ".None", "-" + step + ".WaitForLeadershipDrain", step + ".EventNodeLost"}},
	// The StorageResized condition's reason, when it changes.
	"pkg/controller/volumes.go: cond.Reason": {from: []string{step + ".ReasonStorage*"}},
	// The CertificatesReady condition's reason, when it changes.
	"pkg/controller/certificates.go: cond.Reason": {from: []string{"pkg/controller.ReasonCertificate*", "pkg/controller.ReasonCertManager*"}},
	// "ClusterConfig" and the ConfigApplied condition's reason: its own, or an admin API's
	// problem (brokers.Problem) while the properties cannot be read.
	`pkg/controller/clusterconfig.go: "ClusterConfig" + cond.Reason`: {prefix: "ClusterConfig", from: []string{
		"pkg/controller/internal/brokers.ReasonConfig*", step + ".ReasonAdminAPI*", step + ".ReasonAdminSecret*"}},
	// The security stages' events, and the SecurityReady condition's when it changes.
	"pkg/controller/security.go: st.Reason": {from: []string{"pkg/controller/internal/brokers.ReasonSecurity*"}},
	"pkg/controller/security.go: reason":    {from: []string{"pkg/controller/internal/brokers.ReasonSecurity*", "pkg/controller/internal/brokers.EventSecurity*"}},
	// A BrokerTopic's events, each a constant of pkg/topics passed to its event helper.
	"pkg/topics/sync.go: reason": {from: []string{"pkg/topics.Event*"}},
	// A BrokerUser's events, the same way.
	"pkg/users/sync.go: reason": {from: []string{"pkg/users.Event*"}},
}

// goConst is one constant declaration.
type goConst struct {
	pkg, name, typ string // package (directory relative to the root), name, declared type's name
	value          ast.Expr
	file           *goFile
}

type goFile struct {
	rel     string            // relative to the root
	dir     string            // the package's directory, relative to the root
	imports map[string]string // local name to directory relative to the root (this module's only)
}

type goSource struct {
	consts map[string]*goConst // by "dir.Name"
	dirs   map[string]bool     // the packages' directories
}

// value resolves a constant expression of file f to its string value.
func (s *goSource) value(f *goFile, e ast.Expr, depth int) (string, bool) {
	if depth > 20 {
		return "", false
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		v, err := strconv.Unquote(e.Value)
		return v, err == nil
	case *ast.ParenExpr:
		return s.value(f, e.X, depth+1)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok1 := s.value(f, e.X, depth+1)
		y, ok2 := s.value(f, e.Y, depth+1)
		return x + y, ok1 && ok2
	case *ast.Ident:
		if c := s.consts[f.dir+"."+e.Name]; c != nil {
			return s.value(c.file, c.value, depth+1)
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if dir, ok := f.imports[x.Name]; ok {
				if c := s.consts[dir+"."+e.Sel.Name]; c != nil {
					return s.value(c.file, c.value, depth+1)
				}
			}
		}
	case *ast.CallExpr: // a conversion, Kind("x") or string(k)
		if len(e.Args) == 1 {
			if id, ok := e.Fun.(*ast.Ident); ok && (id.Name == "string" || id.Name == "Kind") {
				return s.value(f, e.Args[0], depth+1)
			}
		}
	}
	return "", false
}

// set returns the values of the constants a constSet names.
func (s *goSource) set(sel string) (map[string]bool, error) {
	out := map[string]bool{}
	typ := strings.HasPrefix(sel, "type ")
	sel = strings.TrimPrefix(sel, "type ")
	dir, name, ok := strings.Cut(sel, ".")
	if !ok || !s.dirs[dir] {
		return nil, fmt.Errorf("dynamicEvents: no package %q in %v", dir, sourceDirs)
	}
	for _, c := range s.consts {
		if c.pkg != dir {
			continue
		}
		match := c.name == name || (strings.HasSuffix(name, "*") && strings.HasPrefix(c.name, strings.TrimSuffix(name, "*")))
		if typ {
			match = c.typ == name
		}
		if !match {
			continue
		}
		if v, ok := s.value(c.file, c.value, 0); ok {
			out[v] = true
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dynamicEvents: %q names no string constant", sel)
	}
	return out, nil
}

// reasons reads the Go files under root's dirs for the condition and event reasons.
func reasons(root string, dirs []string) (conditions, events map[string]bool, problems []problem, err error) {
	module, err := modulePath(root)
	if err != nil {
		return nil, nil, nil, err
	}
	src := &goSource{consts: map[string]*goConst{}, dirs: map[string]bool{}}
	fset := token.NewFileSet()
	var files []*ast.File
	var gfs []*goFile
	walk := func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "generated" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		af, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		gf := &goFile{rel: rel, dir: path.Dir(rel), imports: map[string]string{}}
		for _, im := range af.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if !strings.HasPrefix(ip, module+"/") {
				continue
			}
			local := path.Base(ip)
			if im.Name != nil {
				local = im.Name.Name
			}
			gf.imports[local] = strings.TrimPrefix(ip, module+"/")
		}
		src.dirs[gf.dir] = true
		for _, decl := range af.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				typ := ""
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				}
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						src.consts[gf.dir+"."+n.Name] = &goConst{pkg: gf.dir, name: n.Name, typ: typ, value: vs.Values[i], file: gf}
					}
				}
			}
		}
		files, gfs = append(files, af), append(gfs, gf)
		return nil
	}
	for _, dir := range dirs {
		full := filepath.Join(root, filepath.FromSlash(dir))
		if _, serr := os.Stat(full); serr != nil {
			continue
		}
		if err := filepath.WalkDir(full, walk); err != nil {
			return nil, nil, nil, err
		}
	}
	conditions, events = map[string]bool{}, map[string]bool{}
	for _, c := range src.consts {
		if strings.HasPrefix(c.name, "Reason") {
			if v, ok := src.value(c.file, c.value, 0); ok {
				conditions[v] = true
			}
		}
	}
	for i, af := range files {
		gf := gfs[i]
		ast.Inspect(af, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasSuffix(strings.ToLower(exprString(sel.X)), "recorder") {
				return true
			}
			at := map[string]int{"Event": 2, "Eventf": 2, "AnnotatedEventf": 3}[sel.Sel.Name]
			if at == 0 || len(call.Args) <= at {
				return true
			}
			arg := call.Args[at]
			if v, ok := src.value(gf, arg, 0); ok {
				events[v] = true
				return true
			}
			key := gf.rel + ": " + exprString(arg)
			dyn, ok := dynamicEvents[key]
			if !ok {
				problems = append(problems, problem{file: gf.rel, line: fset.Position(arg.Pos()).Line,
					msg: fmt.Sprintf("an event whose reason, %s, is not a constant: say in dynamicEvents (hack/docscheck) which constants it takes", exprString(arg))})
				return true
			}
			for _, sel := range dyn.from {
				vals, serr := src.set(strings.TrimPrefix(sel, "-"))
				if serr != nil {
					err = serr
					return false
				}
				for v := range vals {
					if strings.HasPrefix(sel, "-") {
						delete(events, dyn.prefix+v)
					} else {
						events[dyn.prefix+v] = true
					}
				}
			}
			return true
		})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	return conditions, events, problems, nil
}

// exprString prints a short expression as the source writes it.
func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.BasicLit:
		return e.Value
	case *ast.BinaryExpr:
		return exprString(e.X) + " " + e.Op.String() + " " + exprString(e.Y)
	case *ast.CallExpr:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = exprString(a)
		}
		return exprString(e.Fun) + "(" + strings.Join(args, ", ") + ")"
	case *ast.ParenExpr:
		return "(" + exprString(e.X) + ")"
	case *ast.IndexExpr:
		return exprString(e.X) + "[" + exprString(e.Index) + "]"
	}
	return fmt.Sprintf("%T", e)
}

func modulePath(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.TrimSpace(m), nil
		}
	}
	return "", fmt.Errorf("go.mod names no module")
}

// --- Fields ---

// kubernetesFields are the field paths of t's spec and status whose Go type is not one of the
// API package's own structs (a Kubernetes type such as corev1.Affinity, a Quantity, a Time, a
// map, a string): the docs must name each, and need not name what lies inside.
func kubernetesFields(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	own := t.PkgPath()
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := range t.NumField() {
			sf := t.Field(i)
			name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "-" || (!sf.IsExported() && !sf.Anonymous) {
				continue
			}
			ft := sf.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array {
				ft = ft.Elem()
			}
			if name == "" && (sf.Anonymous || strings.Contains(opts, "inline")) {
				if ft.Kind() == reflect.Struct && ft.PkgPath() == own {
					walk(ft, prefix)
				}
				continue
			}
			p := prefix + name
			if ft.Kind() == reflect.Struct && ft.PkgPath() == own {
				walk(ft, p+".")
			} else {
				out[p] = true
			}
		}
	}
	for _, top := range []string{"Spec", "Status"} {
		sf, ok := t.FieldByName(top)
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		walk(sf.Type, name+".")
	}
	return out
}

type schema struct {
	Type                 string            `json:"type"`
	Properties           map[string]schema `json:"properties"`
	Items                *schema           `json:"items"`
	AdditionalProperties *schema           `json:"additionalProperties"`
	PreserveUnknown      bool              `json:"x-kubernetes-preserve-unknown-fields"`
}

// crdFields returns every field path of the CRD's spec and status, the paths of maps, and the
// paths the docs must name: those not inside a field of leaves (kubernetesFields).
func crdFields(crd []byte, leaves map[string]bool) (fields, maps, due map[string]bool, err error) {
	var doc struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema schema `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(crd, &doc); err != nil {
		return nil, nil, nil, err
	}
	if len(doc.Spec.Versions) == 0 {
		return nil, nil, nil, fmt.Errorf("no version")
	}
	fields, maps, due = map[string]bool{}, map[string]bool{}, map[string]bool{}
	var walk func(s schema, p string, inside bool)
	walk = func(s schema, p string, inside bool) {
		for s.Type == "array" && s.Items != nil {
			s = *s.Items
		}
		fields[p] = true
		if !inside && strings.Contains(p, ".") {
			due[p] = true
		}
		if s.AdditionalProperties != nil || s.PreserveUnknown || (s.Type == "object" && len(s.Properties) == 0) {
			maps[p] = true
		}
		inside = inside || leaves[p]
		for name, sub := range s.Properties {
			walk(sub, p+"."+name, inside)
		}
	}
	for _, v := range doc.Spec.Versions {
		for _, top := range []string{"spec", "status"} {
			if s, ok := v.Schema.OpenAPIV3Schema.Properties[top]; ok {
				walk(s, top, false)
			}
		}
	}
	if len(fields) == 0 {
		return nil, nil, nil, fmt.Errorf("no spec or status in the schema")
	}
	return fields, maps, due, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
