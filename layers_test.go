// Package layers_test enforces docs/architecture.md: imports point down only, the
// checker never imports a protocol, pkg/errors stays at the edge, and sim/ and
// protocols/ keep the determinism contract (no wall clock, goroutines, channels,
// mutexes, global randomness, os or net).
package layers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
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
	"protocols/":  {"sim"},
	"scenarios":   {"sim", "sim/check", "tui/layout", "protocols/"},
	// explore draws fault schedules over scenarios: pure like sim (no wall time).
	"scenarios/explore": {"sim", "sim/check", "sim/fault", "scenarios"},
	"tui":               {"sim", "sim/check", "tui/layout", "scenarios"},
	// export draws a finished run from the layout's rows, as the TUI does.
	"tui/export":  {"sim", "sim/check", "tui/layout", "scenarios"},
	"cmd/locksim": {"sim", "sim/check", "sim/fault", "tui/layout", "scenarios", "scenarios/explore", "tui", "tui/export", "protocols/"},
	// fidelity compares the models with the real servers: its tests drive the
	// protocols' processes in a world, and nothing imports it.
	"fidelity": {"sim", "protocols/"},
}

// crossProtocol lists the protocol packages built on another (architecture.md:
// "only where one system is built on another").
var crossProtocol = map[string][]string{
	"protocols/redlock": {"protocols/redis"},
	"protocols/zset":    {"protocols/redis"},
}

// thirdParty says where outside modules may be used.
var thirdParty = map[string][]string{
	"github.com/pkg/errors":     {"scenarios", "cmd/locksim"},
	"charm.land/":               {"tui", "cmd/locksim"},
	"github.com/charmbracelet/": {"tui"},
	"pgregory.net/rapid":        {"sim/simtest"},
}

// forbiddenImports break the determinism contract in sim/ and protocols/.
var forbiddenImports = []string{"os", "net", "math/rand", "sync", "sync/atomic", "syscall",
	"os/exec", "io/ioutil", "unsafe", "runtime", "crypto/rand", "log"}

var forbiddenTime = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker"}

// randAllowed are the only math/rand/v2 names sim/ and protocols/ may use: the
// global functions (rand.IntN and friends) draw from an unseeded source.
var randAllowed = []string{"New", "NewPCG", "Rand", "PCG", "Source"}

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
	for pkg, files := range modulePackages(t) {
		if pkg != "sim" && !strings.HasPrefix(pkg, "sim/") && !strings.HasPrefix(pkg, "protocols/") && pkg != "scenarios/explore" {
			continue
		}
		for _, f := range files {
			for _, p := range determinismProblems(f.ast) {
				t.Errorf("%s: %s", f.name, p)
			}
		}
	}
}

// The rules themselves must be able to fail: a file that breaks each one is caught.
func TestTheRulesCatchViolations(t *testing.T) {
	src := `package p
import (
	"math/rand/v2"
	"os"
	"time"
)
func f() {
	_ = time.Now()
	go f()
	c := make(chan int)
	_ = rand.IntN(3)
	_ = os.Args
	_ = c
}`
	f, err := parser.ParseFile(token.NewFileSet(), "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(determinismProblems(f), "\n")
	for _, want := range []string{`imports "os"`, "time.Now", "go statement", "channel", "rand.IntN"} {
		if !strings.Contains(got, want) {
			t.Errorf("a file using %s was not caught; problems found:\n%s", want, got)
		}
	}
	if importRule("sim/check", module+"/protocols/redis") == "" {
		t.Error("the checker importing a protocol was not caught")
	}
	if importRule("protocols/redis", "github.com/pkg/errors") == "" {
		t.Error("pkg/errors inside a protocol was not caught")
	}
	if importRule("tui", module+"/protocols/redis") == "" {
		t.Error("the TUI importing a protocol was not caught")
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
	if !strings.Contains(strings.Split(path, "/")[0], ".") {
		return "" // the standard library; sim/ and protocols/ are checked separately
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

func determinismProblems(f *ast.File) []string {
	var out []string
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if slices.Contains(forbiddenImports, path) || strings.HasPrefix(path, "net/") {
			out = append(out, "imports "+strconv.Quote(path))
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if path == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			out = append(out, "a go statement")
		case *ast.ChanType, *ast.SelectStmt, *ast.SendStmt:
			out = append(out, "a channel")
		case *ast.SelectorExpr:
			id, ok := n.X.(*ast.Ident)
			if !ok {
				break
			}
			switch names[id.Name] {
			case "time":
				if slices.Contains(forbiddenTime, n.Sel.Name) {
					out = append(out, "time."+n.Sel.Name+" reads the wall clock")
				}
			case "math/rand/v2":
				if !slices.Contains(randAllowed, n.Sel.Name) {
					out = append(out, "rand."+n.Sel.Name+" draws from the global source")
				}
			}
		}
		return true
	})
	return out
}

type file struct {
	name string
	ast  *ast.File
}

// modulePackages parses every non-test Go file of the module, by package path.
func modulePackages(t *testing.T) map[string][]file {
	t.Helper()
	pkgs := map[string][]file{}
	fset := token.NewFileSet()
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
		f, err := parser.ParseFile(fset, path, nil, 0)
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
