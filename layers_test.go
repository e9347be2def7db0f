// Package layers_test enforces docs/architecture.md: imports point down only, the
// checker never imports a protocol, pkg/errors stays at the edge, and sim/ and
// protocols/ keep the determinism contract: no wall clock, goroutines, channels,
// mutexes, global randomness, os or net; no writes to package-level variables
// (state that would outlive a run and leak into the next); and no range over a
// map whose order can reach an output (Go randomises it on every run). In the
// whole module, goroutines start in three files only: the explorer's worker pool
// (cmd/locksim/cli/workers.go), which runs whole seeds in parallel, and two that
// wait on the operating system outside any run (goroutinesAllowed).
//
// The rules read types (go/types, with the standard library's importers), so a
// renamed import, a dot import or a method value cannot hide a call, and a range
// is known to be over a map whatever its expression looks like.
package layers_test

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/locksim/locksim"

// allowed says which module packages a package may import; a trailing "/" allows
// every package below. Packages not listed may import nothing of the module.
var allowed = map[string][]string{
	"sim":       {},
	"sim/check": {"sim"},
	// fault is the one form of a fault schedule: the explorer, the property
	// tests' support and users' tests share it.
	"sim/fault":   {"sim"},
	"sim/simtest": {"sim", "sim/fault"},
	"tui/layout":  {"sim", "sim/check"},
	"protocols/":  {"sim", "protocols/lockkit"}, // every protocol may build on the lock-client kit
	// scenarios reads fault verbs from sim/fault (the one text form of a fault).
	// It renders nothing: tui/export draws its runs, as text too, and the
	// command line composes the two; nothing under tui/ is below it.
	"scenarios": {"sim", "sim/check", "sim/fault", "protocols/"},
	// explore draws fault schedules over scenarios: pure like sim (no wall time).
	"scenarios/explore": {"sim", "sim/check", "sim/fault", "scenarios"},
	// proptest is test support for users' property tests over a template.
	"scenarios/proptest": {"sim", "sim/check", "sim/fault", "sim/simtest", "scenarios", "scenarios/explore"},
	// tui starts a check from the catalogue (scenarios/explore's Stepper).
	"tui": {"sim", "sim/check", "sim/fault", "tui/layout", "scenarios", "scenarios/explore"},
	// fixture is test support for tui's and tui/export's tests: shared runs.
	"tui/internal/fixture": {"sim/simtest", "scenarios"},
	// export draws a finished run from the layout's rows, as the TUI does.
	"tui/export": {"sim", "sim/check", "tui/layout", "scenarios"},
	// cli is the command line, importable: cmd/locksim's main is cli.Main(),
	// and a program of its own (cmd/example-lock) runs it with its kinds.
	"cmd/locksim/cli": {"sim", "sim/check", "sim/fault", "tui/layout", "scenarios", "scenarios/explore", "tui", "tui/export", "protocols/",
		"cmd/locksim/internal/playground"},
	"cmd/locksim": {"cmd/locksim/cli"},
	// The playground: the page around the engine (cli writes it), and the
	// engine, which is the command line built for the browser.
	"cmd/locksim/internal/playground":            {"cmd/locksim/internal/playground/enginehash"},
	"cmd/locksim/internal/playground/enginehash": {},
	"cmd/locksim/internal/playground/gen":        {"cmd/locksim/internal/playground/enginehash"},
	"cmd/locksim-wasm":                           {"cmd/locksim/cli", "scenarios", "scenarios/explore"},
	// The worked example of docs/your-protocol.md is written as a user would:
	// public packages only (cmd/example-lock/public_test.go says which).
	"cmd/example-lock/sessionlock": {"sim", "protocols/lockkit"},
	"cmd/example-lock":             {"cmd/locksim/cli", "cmd/example-lock/sessionlock", "scenarios", "sim", "protocols/lockkit"},
	// fidelity compares the models with the real servers: its tests drive the
	// protocols' processes in a world, and nothing imports it.
	"fidelity": {"sim", "protocols/"},
}

// crossProtocol lists the protocol packages built on another (architecture.md:
// "only where one system is built on another").
var crossProtocol = map[string][]string{
	"protocols/redlock": {"protocols/redis"},
	"protocols/zset":    {"protocols/redis"},
	// 2PC and 3PC are two protocols for one problem, atomic commitment: what
	// they share is written once in atomiccommit.
	"protocols/twopc":   {"protocols/atomiccommit"},
	"protocols/threepc": {"protocols/atomiccommit"},
}

// thirdParty says where outside modules may be used.
var thirdParty = map[string][]string{
	"github.com/pkg/errors":     {"scenarios", "cmd/locksim/cli"},
	"charm.land/":               {"tui", "cmd/locksim/cli"},
	"github.com/charmbracelet/": {"tui"},
	"pgregory.net/rapid":        {"sim/simtest", "scenarios/proptest"},
}

// forbiddenImports break the determinism contract in sim/ and protocols/.
var forbiddenImports = []string{"os", "net", "math/rand", "sync", "sync/atomic", "syscall",
	"os/exec", "io/ioutil", "unsafe", "runtime", "crypto/rand", "log"}

var forbiddenTime = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker"}

// randAllowed are the only package-level names of math/rand/v2 that sim/ and
// protocols/ may use: the global functions (rand.IntN and friends) draw from an
// unseeded source.
var randAllowed = []string{"New", "NewPCG", "Rand", "PCG", "Source"}

// orderFreeMark is the comment that tells the guard a map range's order cannot
// reach an output, with the reason after it: "// order-free: the minimum of
// unique revisions". It stands on the range's line or the line above.
var orderFreeMark = regexp.MustCompile(`order-free:\s*\S`)

func TestImportsPointDown(t *testing.T) {
	for pkg, files := range modulePackages(t) {
		for _, f := range files {
			for _, imp := range f.ast.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if msg := importRule(pkg, path); msg != "" {
					t.Errorf("%s imports %s: %s", f.name, path, msg)
				}
			}
		}
	}
}

func TestSimAndProtocolsAreDeterministic(t *testing.T) {
	pkgs := modulePackages(t)
	l := newLoader(pkgs)
	for pkg := range pkgs {
		if !deterministic(pkg) {
			continue
		}
		info, err := l.check(pkg)
		if err != nil {
			t.Fatalf("type-checking %s: %v", pkg, err)
		}
		for _, f := range pkgs[pkg] {
			for _, p := range determinismProblems(fset, f.ast, info, pkg != "scenarios/explore") {
				t.Errorf("%s", p)
			}
		}
	}
}

// goroutinesAllowed lists the only files that may start goroutines: the
// explorer's worker pool, which runs whole, independent seeds in parallel
// (`locksim explore --workers N`) and hands their outcomes back in seed order.
// A run itself (the kernel, the models, the checker) is single-threaded, so a
// seed's result never depends on the number of cores. Two more files wait on
// the operating system, outside any run: the supervisor passes signals on to
// the child it waits for, and reading a named pipe waits for a writer with a
// deadline (an open() that blocks cannot be given one).
var goroutinesAllowed = []string{"cmd/locksim/cli/workers.go", "cmd/locksim/cli/supervise.go", "scenarios/pipe_unix.go"}

// Goroutines start only where goroutinesAllowed says, in every package.
func TestGoroutinesOnlyInTheExplorersWorkers(t *testing.T) {
	for _, files := range modulePackages(t) {
		for _, f := range files {
			ast.Inspect(f.ast, func(n ast.Node) bool {
				if g, ok := n.(*ast.GoStmt); ok && !slices.Contains(goroutinesAllowed, filepath.ToSlash(f.name)) {
					t.Errorf("%s: a go statement outside %v", fset.Position(g.Pos()), goroutinesAllowed)
				}
				return true
			})
		}
	}
}

// deterministic lists the packages the determinism rules apply to: sim/ and
// protocols/ fully; scenarios/explore (which draws schedules from a seed) for
// time, randomness and concurrency.
func deterministic(pkg string) bool {
	return pkg == "sim" || strings.HasPrefix(pkg, "sim/") || strings.HasPrefix(pkg, "protocols/") || pkg == "scenarios/explore" ||
		pkg == "cmd/example-lock/sessionlock" // a user's protocol keeps the contract too
}

// The rules themselves must be able to fail: a fixture that breaks each one is
// caught, and the order-free shapes the guard accepts are not.
func TestTheRulesCatchViolations(t *testing.T) {
	src := `package p

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	clock "time"
)

type out struct{ sent []string }

func (o *out) Send(s string) { o.sent = append(o.sent, s) }

type counter struct{ n int }

func (c *counter) bump() { c.n++ }

var (
	calls   int
	cache   = map[string]int{}
	last    *counter
	shared  counter
	table   = [...]string{"a", "b"}
)

func wall() {
	_ = clock.Now()
	go wall()
	c := make(chan int)
	_ = rand.IntN(3)
	_ = os.Args
	_ = c
	_ = rand.New(rand.NewPCG(1, 2)) // allowed: a seeded source
}

func globals(k string) string {
	calls++                // BAD calls
	cache[k] = 1           // BAD cache
	last.n = 2             // BAD last
	p := &shared           // BAD shared
	shared.bump()          // BAD shared (a pointer method on it)
	local := map[string]int{}
	local[k] = calls       // reading is fine
	_ = p
	return table[0]
}

func ranges(m map[string]int, o *out) (int, []string) {
	var keys []string
	for k := range m { // BAD append, never sorted
		keys = append(keys, k)
	}
	for k := range m { // BAD sends in map order
		o.Send(k)
	}
	first := ""
	for k := range m { // BAD the first in map order
		first = k
		break
	}
	last := 0
	for _, v := range m { // BAD the last element of the last entry in map order
		for _, last = range []int{v} {
		}
	}
	_ = last
	joined := ""
	for k := range m { // BAD string concatenation
		joined += k
	}
	_, _ = first, joined

	// The shapes the guard accepts.
	var sorted []string
	for k := range m {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	set, cp, most, n := map[string]bool{}, map[string]int{}, 0, 0
	for k, v := range m {
		if p := strings.ToUpper(k); p != "" {
			set[p] = true
		}
		cp[k] = v * 2
		most = max(most, v)
		n++
	}
	for _, v := range m {
		if v < 0 {
			return -1, nil
		}
	}
	best := ""
	// order-free: keys are unique, so the least one is the same in any order
	for k := range m {
		if best == "" || k < best {
			best = k
		}
	}
	_, _, _ = set, cp, best
	return most + n, sorted
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := newInfo()
	if _, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	got := determinismProblems(fset, f, info, true)
	all := strings.Join(got, "\n")
	for _, want := range []string{`imports "os"`, "time.Now", "go statement", "channel", "rand.IntN"} {
		if !strings.Contains(all, want) {
			t.Errorf("a file using %s was not caught; problems found:\n%s", want, all)
		}
	}
	// Every line marked BAD is caught, and nothing else is.
	var bad []int
	for i, ln := range strings.Split(src, "\n") {
		if strings.Contains(ln, "// BAD") {
			bad = append(bad, i+1)
		}
	}
	var caught []int
	for _, p := range got {
		if strings.Contains(p, "package-level") || strings.Contains(p, "range over") {
			line, _ := strconv.Atoi(strings.Split(p, ":")[1])
			caught = append(caught, line)
		}
	}
	slices.Sort(caught)
	if caught = slices.Compact(caught); !slices.Equal(caught, bad) {
		t.Errorf("caught the package-level writes and map ranges on lines %v, want %v:\n%s", caught, bad, all)
	}
	if importRule("sim/check", module+"/protocols/redis") == "" {
		t.Error("the checker importing a protocol was not caught")
	}
	if importRule("protocols/redis", "github.com/pkg/errors") == "" {
		t.Error("pkg/errors inside a protocol was not caught")
	}
	if importRule("protocols/lockkit", module+"/protocols/redis") == "" {
		t.Error("the lock-client kit importing a protocol was not caught")
	}
	if importRule("tui", module+"/protocols/redis") == "" {
		t.Error("the TUI importing a protocol was not caught")
	}
	for _, up := range []string{"tui/layout", "tui/export", "tui"} {
		if importRule("scenarios", module+"/"+up) == "" {
			t.Errorf("the scenario runner importing %s (rendering, a layer above) was not caught", up)
		}
	}
}

// importRule returns why pkg may not import path, or "".
func importRule(pkg, path string) string {
	if rel, ok := strings.CutPrefix(path, module+"/"); ok {
		if slices.Contains(crossProtocol[pkg], rel) {
			return ""
		}
		for _, a := range lookup(allowed, pkg) {
			if a == rel || (strings.HasSuffix(a, "/") && strings.HasPrefix(rel, a) && !strings.HasPrefix(pkg, a)) {
				return ""
			}
		}
		return "that import points up or sideways (docs/architecture.md, Layers)"
	}
	if isStd(path) {
		return "" // sim/ and protocols/ are checked separately
	}
	for mod, users := range thirdParty {
		if path == mod || (strings.HasSuffix(mod, "/") && strings.HasPrefix(path, mod)) || strings.HasPrefix(path, mod+"/") {
			for _, u := range users {
				if pkg == u || strings.HasPrefix(pkg, u+"/") {
					return ""
				}
			}
			return "only " + strings.Join(users, ", ") + " may use " + mod
		}
	}
	return "an outside module not on the owner's list"
}

func isStd(path string) bool { return !strings.Contains(strings.Split(path, "/")[0], ".") }

func lookup(m map[string][]string, pkg string) []string {
	if v, ok := m[pkg]; ok {
		return v
	}
	for k, v := range m {
		if strings.HasSuffix(k, "/") && strings.HasPrefix(pkg, k) {
			return v
		}
	}
	return nil
}

// determinismProblems lists what breaks the determinism contract in a
// type-checked file. state adds the rules on state: writes to package-level
// variables and ranges over maps.
func determinismProblems(fset *token.FileSet, f *ast.File, info *types.Info, state bool) []string {
	var out []string
	report := func(n ast.Node, format string, a ...any) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), fmt.Sprintf(format, a...)))
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if slices.Contains(forbiddenImports, path) || strings.HasPrefix(path, "net/") {
			report(imp, "imports %q", path)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			report(n, "a go statement")
		case *ast.ChanType, *ast.SelectStmt, *ast.SendStmt:
			report(n, "a channel")
		case *ast.Ident:
			obj := info.Uses[n]
			if obj == nil || obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() {
				break // not a package-level name
			}
			switch obj.Pkg().Path() {
			case "time":
				if slices.Contains(forbiddenTime, obj.Name()) {
					report(n, "time.%s reads the wall clock", obj.Name())
				}
			case "math/rand/v2":
				if !slices.Contains(randAllowed, obj.Name()) {
					report(n, "rand.%s draws from the global source", obj.Name())
				}
			}
		}
		return true
	})
	if state {
		globalWrites(f, info, report)
		mapRanges(fset, f, info, report)
	}
	return out
}

// globalWrites reports every write to a package-level variable: an assignment
// to it or into it (a field, an element), ++ or --, its address taken, or a
// method with a pointer receiver called on it.
func globalWrites(f *ast.File, info *types.Info, report func(ast.Node, string, ...any)) {
	check := func(n ast.Node, e ast.Expr, how string) {
		if v := packageVar(root(e, info), info); v != nil {
			report(n, "%s package-level variable %s: a run's state must live in its world", how, v.Name())
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					check(n, l, "writes")
				}
			}
		case *ast.IncDecStmt:
			check(n, n.X, "writes")
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if e != nil {
						check(n, e, "writes")
					}
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				check(n, n.X, "takes the address of")
			}
		case *ast.SelectorExpr:
			if sel := info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal {
				_, recvPtr := sel.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer)
				_, onPtr := info.TypeOf(n.X).Underlying().(*types.Pointer)
				if recvPtr && !onPtr {
					check(n, n.X, "calls a pointer method on")
				}
			}
		}
		return true
	})
}

// root is the variable an expression writes into: x for x, x.f, x[i], *x.
func root(e ast.Expr, info *types.Info) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			if _, ok := info.Uses[identOf(x.X)].(*types.PkgName); ok {
				return x.Sel // another package's variable
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		default:
			return nil
		}
	}
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := e.(*ast.Ident)
	return id
}

func packageVar(id *ast.Ident, info *types.Info) *types.Var {
	if id == nil {
		return nil
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		return nil
	}
	return v
}

// mapRanges reports every range over a map (or over maps.Keys, Values or All)
// whose order can reach an output, unless a comment marks it order-free.
func mapRanges(fset *token.FileSet, f *ast.File, info *types.Info, report func(ast.Node, string, ...any)) {
	marked := map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if orderFreeMark.MatchString(c.Text) {
				marked[fset.Position(c.Pos()).Line] = true
			}
		}
	}
	visit := func(list []ast.Stmt) {
		for i, s := range list {
			if l, ok := s.(*ast.LabeledStmt); ok {
				s = l.Stmt
			}
			rs, ok := s.(*ast.RangeStmt)
			if !ok || !overMap(rs.X, info) {
				continue
			}
			line := fset.Position(rs.Pos()).Line
			if marked[line] || marked[line-1] {
				continue
			}
			if !newOrderFree(rs, list[i+1:], info).stmts(rs.Body.List) {
				report(rs, "a range over map %s whose order can reach an output: sort the keys first, "+
					"or mark it // order-free: why", types.ExprString(rs.X))
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			visit(n.List)
		case *ast.CaseClause:
			visit(n.Body)
		case *ast.CommClause:
			visit(n.Body)
		}
		return true
	})
}

func overMap(x ast.Expr, info *types.Info) bool {
	if _, ok := info.TypeOf(x).Underlying().(*types.Map); ok {
		return true
	}
	if call, ok := x.(*ast.CallExpr); ok {
		if fn, ok := info.Uses[calleeIdent(call)].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "maps" {
			return slices.Contains([]string{"Keys", "Values", "All"}, fn.Name())
		}
	}
	return false
}

func calleeIdent(call *ast.CallExpr) *ast.Ident {
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		return fn
	case *ast.SelectorExpr:
		return fn.Sel
	}
	return nil
}

// orderFree decides whether a map range's body can let the map's order reach
// an output. It accepts the shapes whose result is the same in any order:
//   - writes to variables declared in the body, or through the loop's own
//     key and value (changing each entry in place);
//   - writes into a map indexed by the loop's key (a copy), or of a constant
//     (building a set), and deletes;
//   - reductions: x++, x += e on integers, x = max(x, e), min, x = x || e, &&;
//   - appends to a slice that is sorted after the loop (collect, then sort),
//     with only more such appends between;
//   - returns of values the loop does not compute (an existence test), and
//     continue;
//   - ifs and loops made of the above.
//
// Anything else (a call statement, which may send or observe; break; an
// assignment to an outer variable) needs the order-free mark.
type orderFree struct {
	info   *types.Info
	key    types.Object
	local  map[types.Object]bool // the loop's variables and what its body declares
	sorted map[string]bool       // slices sorted after the loop
}

func newOrderFree(rs *ast.RangeStmt, after []ast.Stmt, info *types.Info) *orderFree {
	o := &orderFree{info: info, local: map[types.Object]bool{}, sorted: map[string]bool{}}
	if rs.Tok == token.DEFINE {
		if id := identOf(rs.Key); id != nil {
			o.key = info.Defs[id]
		}
		for _, e := range []ast.Expr{rs.Key, rs.Value} {
			if id := identOf(e); id != nil && info.Defs[id] != nil {
				o.local[info.Defs[id]] = true
			}
		}
	}
	// The slices the body appends to that are sorted after the loop, with
	// nothing but more appends to them between.
	ast.Inspect(rs.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || !isAppendTo(as, types.ExprString(as.Lhs[0])) {
			return true
		}
		x := types.ExprString(as.Lhs[0])
		for _, s := range after {
			if y, ok := sortCall(s); ok && y == x {
				o.sorted[x] = true
				break
			}
			if mentions(s, x) > 2*appends(s, x) {
				break // read before it is sorted
			}
		}
		return true
	})
	return o
}

// mentions counts the expressions x in n.
func mentions(n ast.Node, x string) int {
	c := 0
	ast.Inspect(n, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && types.ExprString(e) == x {
			c++
			return false
		}
		return true
	})
	return c
}

// appends counts the statements x = append(x, ...) in n.
func appends(n ast.Node, x string) int {
	c := 0
	ast.Inspect(n, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && isAppendTo(as, x) {
			c++
		}
		return true
	})
	return c
}

// sortCall reports a statement that sorts a slice: sort.X(s, ...) or slices.SortX(s, ...).
func sortCall(s ast.Stmt) (string, bool) {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return "", false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	pkg := identOf(sel.X)
	if pkg == nil || !(pkg.Name == "sort" || pkg.Name == "slices" && strings.HasPrefix(sel.Sel.Name, "Sort")) {
		return "", false
	}
	return types.ExprString(call.Args[0]), true
}

// isAppendTo reports x = append(x, ...).
func isAppendTo(as *ast.AssignStmt, x string) bool {
	if as.Tok != token.ASSIGN || len(as.Rhs) != 1 || types.ExprString(as.Lhs[0]) != x {
		return false
	}
	call, ok := as.Rhs[0].(*ast.CallExpr)
	return ok && identOf(call.Fun) != nil && identOf(call.Fun).Name == "append" && len(call.Args) > 0 && types.ExprString(call.Args[0]) == x
}

func (o *orderFree) stmts(list []ast.Stmt) bool {
	for _, s := range list {
		if !o.stmt(s) {
			return false
		}
	}
	return true
}

func (o *orderFree) stmt(s ast.Stmt) bool {
	switch s := s.(type) {
	case nil:
		return true
	case *ast.BlockStmt:
		return o.stmts(s.List)
	case *ast.IfStmt:
		return o.stmt(s.Init) && o.stmts(s.Body.List) && o.stmt(s.Else)
	case *ast.RangeStmt:
		for _, e := range []ast.Expr{s.Key, s.Value} {
			if s.Tok == token.ASSIGN && e != nil && types.ExprString(e) != "_" && !o.writable(e) {
				return false // it assigns an outer variable in the map's order
			}
		}
		o.declare(s.Key, s.Value)
		return o.stmts(s.Body.List)
	case *ast.ForStmt:
		return o.stmt(s.Init) && o.stmt(s.Post) && o.stmts(s.Body.List)
	case *ast.DeclStmt:
		ast.Inspect(s, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && o.info.Defs[id] != nil {
				o.local[o.info.Defs[id]] = true
			}
			return true
		})
		return true
	case *ast.BranchStmt:
		return s.Tok == token.CONTINUE
	case *ast.ReturnStmt:
		for _, r := range s.Results {
			if o.usesLocal(r) {
				return false
			}
		}
		return true
	case *ast.IncDecStmt:
		return o.writable(s.X) || isInteger(o.info.TypeOf(s.X))
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		return ok && identOf(call.Fun) != nil && identOf(call.Fun).Name == "delete" && o.info.Uses[identOf(call.Fun)] == types.Universe.Lookup("delete")
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE {
			o.declare(s.Lhs...)
			return true
		}
		if len(s.Lhs) == 1 && len(s.Rhs) == 1 && o.reduction(s) {
			return true
		}
		for i, l := range s.Lhs {
			var rhs ast.Expr
			if len(s.Rhs) == len(s.Lhs) {
				rhs = s.Rhs[i]
			}
			if !o.writable(l) && !o.keyed(l, rhs) && !(o.sorted[types.ExprString(l)] && len(s.Lhs) == 1 && isAppendTo(s, types.ExprString(l))) {
				return false
			}
		}
		return true
	}
	return false
}

func (o *orderFree) declare(es ...ast.Expr) {
	for _, e := range es {
		if id := identOf(e); id != nil && o.info.Defs[id] != nil {
			o.local[o.info.Defs[id]] = true
		}
	}
}

// writable: a write into a variable of the body's own, or through the loop's.
func (o *orderFree) writable(e ast.Expr) bool {
	id := root(e, o.info)
	return id != nil && o.local[o.info.Uses[id]]
}

// keyed: m[key] = anything, or m[anything] = a constant.
func (o *orderFree) keyed(l, rhs ast.Expr) bool {
	ix, ok := l.(*ast.IndexExpr)
	if !ok {
		return false
	}
	if _, isMap := o.info.TypeOf(ix.X).Underlying().(*types.Map); !isMap {
		return false
	}
	if id := identOf(ix.Index); id != nil && o.key != nil && o.info.Uses[id] == o.key {
		return true
	}
	return rhs != nil && o.info.Types[rhs].Value != nil
}

// reduction: x op= e on integers, x = max(x, e) or min, x = x || e or &&.
func (o *orderFree) reduction(s *ast.AssignStmt) bool {
	x := types.ExprString(s.Lhs[0])
	switch s.Tok {
	case token.ADD_ASSIGN, token.SUB_ASSIGN, token.MUL_ASSIGN, token.OR_ASSIGN, token.AND_ASSIGN, token.XOR_ASSIGN:
		return isInteger(o.info.TypeOf(s.Lhs[0]))
	case token.ASSIGN:
		switch r := s.Rhs[0].(type) {
		case *ast.CallExpr:
			fn := identOf(r.Fun)
			if fn == nil || (fn.Name != "max" && fn.Name != "min") || o.info.Uses[fn] != types.Universe.Lookup(fn.Name) {
				return false
			}
			return slices.ContainsFunc(r.Args, func(a ast.Expr) bool { return types.ExprString(a) == x })
		case *ast.BinaryExpr:
			return (r.Op == token.LOR || r.Op == token.LAND) && (types.ExprString(r.X) == x || types.ExprString(r.Y) == x)
		}
	}
	return false
}

func (o *orderFree) usesLocal(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && o.local[o.info.Uses[id]] {
			found = true
		}
		return !found
	})
	return found
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

type file struct {
	name string
	ast  *ast.File
}

// modulePackages parses every non-test Go file of the module, by package path.
func modulePackages(t *testing.T) map[string][]file {
	t.Helper()
	pkgs := map[string][]file{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		// Only the files this machine's build takes: a file with its twin for
		// other systems (pipe_unix.go, pipe_other.go) is read once.
		if ok, err := build.Default.MatchFile(filepath.Dir(path), d.Name()); err != nil || !ok {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		pkgs[pkg] = append(pkgs[pkg], file{path, f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs["sim"]) == 0 || len(pkgs["scenarios"]) == 0 {
		t.Fatalf("found no sources (packages: %d): is the test running in the module root?", len(pkgs))
	}
	return pkgs
}

// fset holds every parsed file's positions.
var fset = token.NewFileSet()

// loader type-checks module packages from their parsed files, the standard
// library from its export data and other modules from source.
type loader struct {
	files    map[string][]file
	done     map[string]*types.Package
	infos    map[string]*types.Info
	std, src types.Importer
}

func newLoader(files map[string][]file) *loader {
	return &loader{files: files, done: map[string]*types.Package{}, infos: map[string]*types.Info{},
		std: importer.Default(), src: importer.ForCompiler(fset, "source", nil)}
}

func (l *loader) Import(path string) (*types.Package, error) {
	if rel, ok := strings.CutPrefix(path, module+"/"); ok {
		if _, err := l.check(rel); err != nil {
			return nil, err
		}
		return l.done[rel], nil
	}
	if isStd(path) {
		return l.std.Import(path)
	}
	return l.src.Import(path)
}

func (l *loader) check(pkg string) (*types.Info, error) {
	if info, ok := l.infos[pkg]; ok {
		return info, nil
	}
	var asts []*ast.File
	for _, f := range l.files[pkg] {
		asts = append(asts, f.ast)
	}
	info := newInfo()
	p, err := (&types.Config{Importer: l}).Check(module+"/"+pkg, fset, asts, info)
	if err != nil {
		return nil, err
	}
	l.done[pkg], l.infos[pkg] = p, info
	return info, nil
}

func newInfo() *types.Info {
	return &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
}
