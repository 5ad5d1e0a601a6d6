// Command docscheck checks that what the repository's Markdown files point at exists:
//
//	go run ./hack/docscheck        # from the repository root; make verify runs it
//
// It reads every *.md file of the repository (README.md, docs/, the chart's README and the
// others; directories whose name starts with "." or "_" are left out) and reports, with the
// file and line:
//
//   - Links. Every Markdown link [text](target) and reference definition [label]: target whose
//     target is relative (no scheme such as https:) must name a file or directory that exists,
//     relative to the document. A target with #anchor must name a heading of that Markdown file
//     (the document itself for a bare #anchor), by GitHub's rule: the heading's text in lower
//     case, backticks, asterisks and link syntax removed, every character but letters, digits,
//     spaces, "-" and "_" dropped, spaces made "-", and "-1", "-2", ... added to repeated ones.
//   - Paths. Every inline code span that is one path into this repository must exist, relative
//     to the repository root: a span with a "/" and no spaces, whose first segment is a
//     top-level entry of the repository and, when it has more segments, whose second segment
//     exists under the first (`pkg/writeback/doc.go`, `deploy/`, `hack/update-codegen.sh`).
//     Paths into other repositories whose first directory shares a name with ours (Redpanda's
//     `charts/redpanda/...`, Kubernetes' `pkg/kubelet/...`) are told apart by that second
//     segment. A package path followed by one of its identifiers (`pkg/x/fake.NewClientset`)
//     names the package's directory. Spans holding a placeholder or a pattern (<, >, {, }, *, ..., $) and paths
//     under a top-level directory starting with "_" (build output) are not paths.
//   - Flags. The operator's flags must be flags of `broker-operator --help` (docscheck builds
//     the binary into a temporary directory and runs it). A flag is the operator's when it is
//     written in an inline code span of its own with two dashes (`--leader-elect`,
//     `--admin-timeout`, `--namespace=x`; `--eviction-webhook-*` asks for some flag with that
//     prefix), or is `-v` (klog's verbosity, `-v=2`), or follows `broker-operator` in a code
//     span or in a fenced code line that starts with it. The docs write the flags of Go's tools
//     and of the test harnesses (`-count`, `-race`, the race experiment's and the soak's `-seed`,
//     `-lag`, ...) with one dash, and the flags of other programs inside their command
//     (`kubectl apply --dry-run=server`); neither is checked. `--help` is every Go program's. The few flags of other programs
//     that a doc names alone with two dashes are listed in foreignFlags, each with its program.
//   - Fields. A code span that starts with spec. or status. and a field name (`spec.storage.size`,
//     `spec.maintenanceWindows[].start`, `spec.unsafeSkipHealthGate: true`) must name a field of
//     the generated CRD (deploy/crd/bases), or a key under one of its maps
//     (`spec.clusterConfig.log_segment_size`). A span that goes on with a placeholder
//     (`spec.<field>`) is none. The few fields of other objects the docs write this way (a
//     Pod's `spec.nodeName`) are listed in foreignFields, each with its object.
//   - Reasons. In a Markdown table, every code span in a column headed "condition reason" must be
//     a condition reason, and in one headed "event reason" an event reason; and a code span right
//     after the word "reason" in prose must be either, or another program's listed in
//     foreignReasons. The reasons are read from the controller's Go source (pkg/controller and
//     below; facts.go says how): a condition reason is the value of a string constant named
//     Reason*; an event reason is the reason argument of an EventRecorder call, a constant or one
//     of the computed reasons dynamicEvents lists. An event whose reason is neither is a problem.
//
// Then what must be documented somewhere, each reported once, with no file:
//
//   - every flag of `broker-operator --help` but klog's logging flags, named as above;
//   - every condition reason in a "condition reason" column, and every event reason in an
//     "event reason" column (docs/troubleshooting.md has both);
//   - every field of the CRD's spec and status, by its full path in a code span, down to the
//     fields whose Go type is not one of the API package's own structs (a Kubernetes type such as
//     `spec.affinity`, a map, a list of strings): what lies inside those is Kubernetes' to
//     document.
//
// `go run ./hack/docscheck -list` prints what must be documented.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// foreignFlags are flags of other programs that docs name alone, with two dashes.
var foreignFlags = map[string]string{
	"smp":                            "Seastar (redpanda), set from spec.resources",
	"memory":                         "Seastar (redpanda), set from spec.resources",
	"overprovisioned":                "Seastar (redpanda)",
	"reserve-memory":                 "Seastar (redpanda)",
	"check":                          "rpk redpanda start",
	"advertise-rpc-addr":             "rpk redpanda start",
	"post-restart-caught-up-percent": "Redpanda's operator",
	"hostname-override":              "the kubelet",
}

// foreignFields are fields of other objects that docs name as spec.x or status.x, each with
// its object.
var foreignFields = map[string]string{
	"spec.nodeName":             "a Pod",
	"spec.volumeClaimTemplates": "a StatefulSet",
	"status.hostIP":             "a Pod",
	"status.capacity":           "a PersistentVolumeClaim",
}

// foreignReasons are reasons of other programs' conditions that docs name after the word
// "reason", each with its condition.
var foreignReasons = map[string]string{
	"Unschedulable": "a Pod's PodScheduled condition (the scheduler)",
}

func main() {
	root := flag.String("root", ".", "the repository root")
	helpFile := flag.String("help-output", "", "a file holding the output of broker-operator --help; empty: build the binary and run it")
	list := flag.Bool("list", false, "print the flags, reasons and fields the docs must name, and exit")
	flag.Parse()

	var help []byte
	var err error
	if *helpFile != "" {
		help, err = os.ReadFile(*helpFile)
	} else {
		help, err = operatorHelp(*root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "docscheck:", err)
		os.Exit(2)
	}
	flags := parseHelp(help)
	if len(flags) == 0 {
		fmt.Fprintf(os.Stderr, "docscheck: no flags found in broker-operator --help:\n%s\n", help)
		os.Exit(2)
	}
	f, problems, err := repoFacts(*root, flags)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docscheck:", err)
		os.Exit(2)
	}
	if *list {
		for _, s := range []struct {
			what string
			m    map[string]bool
		}{{"flag", f.required}, {"condition-reason", f.conditionReasons}, {"event-reason", f.eventReasons}, {"field", f.fieldsDue}} {
			for _, k := range sortedKeys(s.m) {
				fmt.Println(s.what, k)
			}
		}
		return
	}
	docProblems, err := check(*root, f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docscheck:", err)
		os.Exit(2)
	}
	problems = append(problems, docProblems...)
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		fmt.Printf("docscheck: %d problems in the docs\n", len(problems))
		os.Exit(1)
	}
}

// operatorHelp builds cmd/broker-operator into a temporary directory and returns what its
// --help prints. Go's flag package prints the usage on stderr; the exit code is not relied on.
func operatorHelp(root string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "docscheck")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	goBin := os.Getenv("GO")
	if goBin == "" {
		goBin = "go"
	}
	bin := filepath.Join(dir, "broker-operator")
	build := exec.Command(goBin, "build", "-o", bin, "./cmd/broker-operator")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the operator: %v\n%s", err, out)
	}
	var out bytes.Buffer
	run := exec.Command(bin, "--help")
	run.Stdout, run.Stderr = &out, &out
	_ = run.Run()
	return out.Bytes(), nil
}

var helpFlag = regexp.MustCompile(`(?m)^\s+--?([A-Za-z0-9][A-Za-z0-9_.-]*)`)

// parseHelp returns the flag names of a Go flag package usage text.
func parseHelp(help []byte) map[string]bool {
	flags := map[string]bool{}
	for _, m := range helpFlag.FindAllSubmatch(help, -1) {
		flags[string(m[1])] = true
	}
	return flags
}

// problem is one thing a document points at that does not exist.
type problem struct {
	file string
	line int
	msg  string
}

func (p problem) String() string {
	if p.file == "" {
		return p.msg
	}
	return fmt.Sprintf("%s:%d: %s", p.file, p.line, p.msg)
}

// check reads every Markdown file under root and returns what they name that does not exist,
// then what f requires that no file names.
func check(root string, f *facts) ([]problem, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	c := &checker{root: root, facts: f, flags: f.flags, docs: map[string]*doc{}, named: map[string]bool{}}
	var problems []problem
	for _, f := range files {
		d, err := c.load(f)
		if err != nil {
			return nil, err
		}
		problems = append(problems, c.checkDoc(d)...)
	}
	return append(problems, c.unnamed()...), nil
}

// unnamed reports what the docs must name and no page does.
func (c *checker) unnamed() []problem {
	var out []problem
	for _, s := range []struct {
		kind, format string
		m            map[string]bool
	}{
		{"flag", "broker-operator --help's flag --%s is on no page: say what it does (docs/flags-and-debugging.md lists every flag)", c.facts.required},
		{"condition", "the condition reason %s is in no table column headed \"condition reason\": say what it means and what to do (docs/troubleshooting.md)", c.facts.conditionReasons},
		{"event", "the event reason %s is in no table column headed \"event reason\": say what it means and what to do (docs/troubleshooting.md)", c.facts.eventReasons},
		{"field", "the CRD field %s is on no page: name it in a code span where its page explains it (docs/cluster-spec.md lists every field)", c.facts.fieldsDue},
	} {
		for _, k := range sortedKeys(s.m) {
			if !c.named[s.kind+" "+k] {
				out = append(out, problem{msg: fmt.Sprintf(s.format, k)})
			}
		}
	}
	return out
}

type checker struct {
	root  string
	facts *facts
	flags map[string]bool
	docs  map[string]*doc // by cleaned path
	named map[string]bool // "flag x", "condition X", "event X", "field spec.x": what some page names
}

// doc is a parsed Markdown file: its text outside fenced code, its fenced lines, its anchors.
type doc struct {
	path    string // as walked, for messages
	rel     string // relative to the root
	prose   []string
	fenced  map[int]string // line index to the fenced line's text
	anchors map[string]bool
}

var fence = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")

func (c *checker) load(path string) (*doc, error) {
	key := filepath.Clean(path)
	if d, ok := c.docs[key]; ok {
		return d, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(c.root, path)
	if err != nil {
		rel = path
	}
	d := &doc{path: path, rel: rel, fenced: map[int]string{}, anchors: map[string]bool{}}
	lines := strings.Split(string(data), "\n")
	d.prose = make([]string, len(lines))
	open := ""
	seen := map[string]int{}
	for i, l := range lines {
		if open != "" {
			if m := fence.FindStringSubmatch(l); m != nil && m[1][0] == open[0] && len(m[1]) >= len(open) && strings.TrimSpace(l[len(m[0]):]) == "" {
				open = ""
			} else {
				d.fenced[i] = l
			}
			continue
		}
		if m := fence.FindStringSubmatch(l); m != nil {
			open = m[1]
			continue
		}
		d.prose[i] = l
		if h := heading(l); h != "" {
			s := slug(h)
			if n := seen[s]; n > 0 {
				d.anchors[fmt.Sprintf("%s-%d", s, n)] = true
			} else {
				d.anchors[s] = true
			}
			seen[s]++
		}
	}
	c.docs[key] = d
	return d, nil
}

var atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}(?:\s+(.*?))?\s*$`)

// heading returns the text of an ATX heading line, or "".
func heading(line string) string {
	m := atxHeading.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	t := strings.TrimRight(m[1], "#")
	return strings.TrimSpace(t)
}

var mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor for a heading's text.
func slug(h string) string {
	h = mdLink.ReplaceAllString(h, "$1")
	h = strings.NewReplacer("`", "", "*", "").Replace(h)
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

var (
	codeSpan  = regexp.MustCompile("(`+)([^`]|[^`][\\s\\S]*?[^`])(`+)")
	link      = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	reference = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)`)
	scheme    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	goIdent   = regexp.MustCompile(`/[a-z][a-z0-9_]*(\.[A-Z][A-Za-z0-9_]*)$`)
	loneFlag  = regexp.MustCompile(`^(--?)([A-Za-z][A-Za-z0-9_.-]*)(\*?)(?:=\S*)?$`)
)

// paragraph is a run of prose lines with no blank line between them.
type paragraph struct {
	text  string
	first int // index of its first line
}

func paragraphs(prose []string) []paragraph {
	var out []paragraph
	start := -1
	for i := 0; i <= len(prose); i++ {
		blank := i == len(prose) || strings.TrimSpace(prose[i]) == ""
		if !blank && start < 0 {
			start = i
		}
		if blank && start >= 0 {
			out = append(out, paragraph{text: strings.Join(prose[start:i], "\n"), first: start})
			start = -1
		}
	}
	return out
}

func (c *checker) checkDoc(d *doc) []problem {
	var problems []problem
	report := func(line int, format string, args ...any) {
		problems = append(problems, problem{file: d.rel, line: line + 1, msg: fmt.Sprintf(format, args...)})
	}
	for _, p := range paragraphs(d.prose) {
		lineAt := func(off int) int { return p.first + strings.Count(p.text[:off], "\n") }
		// Code spans first: what is inside them is neither a link nor prose.
		text := []byte(p.text)
		for _, m := range codeSpan.FindAllStringSubmatchIndex(p.text, -1) {
			if m[3]-m[2] != m[7]-m[6] {
				continue // unmatched backtick runs: not a span
			}
			span := strings.TrimSpace(strings.ReplaceAll(p.text[m[4]:m[5]], "\n", " "))
			line := lineAt(m[0])
			if msg := c.checkPath(span); msg != "" {
				report(line, "%s", msg)
			}
			for _, msg := range c.checkSpanFlags(span) {
				report(line, "%s", msg)
			}
			if msg := c.checkField(span); msg != "" {
				report(line, "%s", msg)
			}
			for i := m[0]; i < m[1]; i++ {
				if text[i] != '\n' {
					text[i] = ' '
				}
			}
		}
		for _, m := range proseReason.FindAllStringSubmatchIndex(p.text, -1) {
			if msg := c.checkProseReason(p.text[m[2]:m[3]]); msg != "" {
				report(lineAt(m[0]), "%s", msg)
			}
		}
		for _, pr := range c.checkTable(p) {
			report(pr.line, "%s", pr.msg)
		}
		clean := string(text)
		var targets [][]int
		for _, m := range link.FindAllStringSubmatchIndex(clean, -1) {
			targets = append(targets, m[2:4])
		}
		for _, m := range reference.FindAllStringSubmatchIndex(clean, -1) {
			targets = append(targets, m[2:4])
		}
		for _, t := range targets {
			if msg := c.checkLink(d, clean[t[0]:t[1]]); msg != "" {
				report(lineAt(t[0]), "%s", msg)
			}
		}
	}
	lines := make([]int, 0, len(d.fenced))
	for i := range d.fenced {
		lines = append(lines, i)
	}
	sort.Ints(lines)
	for _, i := range lines {
		l := strings.TrimSpace(d.fenced[i])
		l = strings.TrimPrefix(l, "$ ")
		if strings.HasPrefix(l, "broker-operator ") {
			for _, msg := range c.commandFlags(l) {
				report(i, "%s", msg)
			}
		}
	}
	return problems
}

// checkLink returns what is wrong with a link target of d, or "".
func (c *checker) checkLink(d *doc, target string) string {
	if scheme.MatchString(target) {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	full := d.path
	if path != "" {
		full = filepath.Join(filepath.Dir(d.path), filepath.FromSlash(path))
		if _, err := os.Stat(full); err != nil {
			return fmt.Sprintf("link to %s: no such file or directory", target)
		}
	}
	if anchor == "" {
		return ""
	}
	if !strings.HasSuffix(full, ".md") {
		return ""
	}
	other, err := c.load(full)
	if err != nil {
		return fmt.Sprintf("link to %s: %v", target, err)
	}
	if !other.anchors[strings.ToLower(anchor)] {
		return fmt.Sprintf("link to %s: %s has no heading with anchor #%s", target, other.rel, anchor)
	}
	return ""
}

// checkPath returns what is wrong with a code span that names a path of the repository, or "".
func (c *checker) checkPath(span string) string {
	if !strings.Contains(span, "/") || strings.ContainsAny(span, " \t<>{}*$\"'`()[]|,;") ||
		strings.Contains(span, "...") || strings.Contains(span, "…") || scheme.MatchString(span) {
		return ""
	}
	p := strings.TrimPrefix(span, "./")
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "_") || strings.HasPrefix(p, "-") {
		return ""
	}
	if m := goIdent.FindStringSubmatchIndex(p); m != nil {
		p = p[:m[2]] // a package's identifier: pkg/x/fake.NewClientset names pkg/x/fake
	}
	segs := strings.Split(strings.TrimSuffix(p, "/"), "/")
	if segs[0] == "" || segs[0] == "." || segs[0] == ".." {
		return ""
	}
	if fi, err := os.Stat(filepath.Join(c.root, segs[0])); err != nil || (len(segs) > 1 && !fi.IsDir()) {
		return ""
	}
	if len(segs) > 1 {
		if _, err := os.Stat(filepath.Join(c.root, segs[0], segs[1])); err != nil {
			return ""
		}
	}
	if _, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(p))); err != nil {
		return fmt.Sprintf("`%s`: no such file or directory in the repository", span)
	}
	return ""
}

// checkSpanFlags checks the operator's flags a code span names: the span alone is a flag with
// two dashes or -v, or it is a broker-operator command line.
func (c *checker) checkSpanFlags(span string) []string {
	if strings.HasPrefix(span, "broker-operator ") {
		return c.commandFlags(span)
	}
	m := loneFlag.FindStringSubmatch(span)
	if m == nil || (m[1] == "-" && m[2] != "v") {
		return nil
	}
	if msg := c.checkFlag(m[2], m[3] == "*"); msg != "" {
		return []string{fmt.Sprintf("`%s`: %s", span, msg)}
	}
	return nil
}

// commandFlags checks every flag of a broker-operator command line.
func (c *checker) commandFlags(cmd string) []string {
	var out []string
	for _, tok := range strings.Fields(cmd)[1:] {
		if strings.HasPrefix(tok, "#") {
			break
		}
		m := loneFlag.FindStringSubmatch(tok)
		if m == nil {
			continue
		}
		if msg := c.checkFlag(m[2], m[3] == "*"); msg != "" {
			out = append(out, fmt.Sprintf("`%s`: %s", cmd, msg))
		}
	}
	return out
}

func (c *checker) checkFlag(name string, prefix bool) string {
	if prefix {
		for f := range c.flags {
			if strings.HasPrefix(f, name) {
				return ""
			}
		}
		return fmt.Sprintf("broker-operator --help has no flag starting with --%s", name)
	}
	if c.flags[name] {
		c.named["flag "+name] = true
		return ""
	}
	if name == "help" || name == "h" {
		return ""
	}
	if _, ok := foreignFlags[name]; ok {
		return ""
	}
	return fmt.Sprintf("broker-operator --help has no flag --%s (a flag of another program alone in a code span: write it with its command, or add it to foreignFlags in hack/docscheck)", name)
}

var (
	fieldSpan   = regexp.MustCompile(`^((?:spec|status)(?:\.[A-Za-z][A-Za-z0-9_]*(?:\[[^\]]*\])?)+)(.*)$`)
	proseReason = regexp.MustCompile("(?i)\\breasons? `([A-Za-z]+)`")
	tableSep    = regexp.MustCompile(`^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$`)
	brackets    = regexp.MustCompile(`\[[^\]]*\]`)
)

// checkField checks a code span that names a field of the BrokerCluster: spec.x or status.x,
// with [] or [i] after a list's name, and anything after it that is not part of a name (": true",
// "=3", " and"). A span whose name goes on with a placeholder (spec.<field>, spec.*) is none.
func (c *checker) checkField(span string) string {
	m := fieldSpan.FindStringSubmatch(span)
	if m == nil {
		return ""
	}
	if rest := m[2]; rest != "" && strings.ContainsAny(rest[:1], ".<*{[$") {
		return ""
	}
	p := brackets.ReplaceAllString(m[1], "")
	if c.facts.fields[p] {
		c.named["field "+p] = true
		return ""
	}
	for a := p; strings.Contains(a, "."); {
		a = a[:strings.LastIndex(a, ".")]
		if c.facts.maps[a] {
			return "" // a key of a map: spec.clusterConfig.x, spec.resources.requests.storage
		}
	}
	if _, ok := foreignFields[p]; ok {
		return ""
	}
	return fmt.Sprintf("`%s`: the CRDs (%s) have no field %s (a field of another object: add it to foreignFields in hack/docscheck)", span, crdFile, p)
}

// checkProseReason checks a reason that prose names right after the word "reason".
func (c *checker) checkProseReason(r string) string {
	if c.facts.conditionReasons[r] || c.facts.eventReasons[r] {
		return ""
	}
	if _, ok := foreignReasons[r]; ok {
		return ""
	}
	return fmt.Sprintf("reason `%s`: no condition or event of the operator has this reason (another program's: add it to foreignReasons in hack/docscheck)", r)
}

// checkTable checks the reasons in a table column headed "condition reason" or "event reason":
// every code span in such a column must be a reason of that kind, and names it.
func (c *checker) checkTable(p paragraph) []problem {
	lines := strings.Split(p.text, "\n")
	if len(lines) < 2 || !strings.HasPrefix(strings.TrimSpace(lines[0]), "|") || !tableSep.MatchString(lines[1]) {
		return nil
	}
	kinds := map[int]string{}
	for i, h := range tableCells(lines[0]) {
		switch strings.ToLower(strings.Trim(h, " *`")) {
		case "condition reason":
			kinds[i] = "condition"
		case "event reason":
			kinds[i] = "event"
		}
	}
	var out []problem
	for n, l := range lines[2:] {
		for i, cell := range tableCells(l) {
			kind, ok := kinds[i]
			if !ok {
				continue
			}
			known := c.facts.conditionReasons
			if kind == "event" {
				known = c.facts.eventReasons
			}
			for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
				r := strings.TrimSpace(m[2])
				if !known[r] {
					out = append(out, problem{line: p.first + 2 + n, msg: fmt.Sprintf("`%s`: no %s of the operator has this reason", r, kind)})
					continue
				}
				c.named[kind+" "+r] = true
			}
		}
	}
	return out
}

// tableCells splits a table row into its cells; a | inside a code span or escaped is no border.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	var cells []string
	var b strings.Builder
	inCode := false
	for i := 0; i < len(row); i++ {
		ch := row[i]
		switch {
		case ch == '\\' && i+1 < len(row) && row[i+1] == '|':
			b.WriteByte('|')
			i++
			continue
		case ch == '`':
			inCode = !inCode
		case ch == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
			continue
		}
		b.WriteByte(ch)
	}
	if s := strings.TrimSpace(b.String()); s != "" {
		cells = append(cells, s)
	}
	return cells
}
