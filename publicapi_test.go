package layers_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// publicPackages are the packages a user writing their own protocol imports
// (docs/your-protocol.md): every exported name in them is documented, so that
// `go doc -all` on each reads as a reference. A package added to the public API
// is added here.
var publicPackages = []string{
	"sim",
	"sim/check",
	"sim/fault",
	"sim/simtest",
	"protocols/lockkit",
	"protocols/resource",
	"scenarios",
	"scenarios/explore",
	"scenarios/proptest",
	"cmd/locksim/cli",
}

// TestPublicAPIIsDocumented fails on every exported name of a public package
// (package, constant, variable, function, type, method, struct field, interface
// method) that go doc would show without a comment.
func TestPublicAPIIsDocumented(t *testing.T) {
	for _, dir := range publicPackages {
		for _, miss := range undocumented(t, dir) {
			t.Errorf("%s: %s has no doc comment", dir, miss)
		}
	}
}

// The rule must be able to fail: a fixture with one undocumented name of each
// shape is caught, name by name, and its documented twins are not.
func TestTheDocRuleCatchesUndocumentedNames(t *testing.T) {
	src := `// Package p is documented.
package p

// Documented is documented.
const Documented = 1

const Bare = 2

const (
	// GroupDoc is documented.
	GroupDoc = 3
	Trailing = 4 // documented at the end of its line
	Naked    = 5
)

var Global int

func Func() {}

// T is documented.
type T struct {
	Field int
	// Doc is documented.
	Doc int
	hidden int
}

func (T) Method() {}

type I interface {
	Call()
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := missingDocs(fset, "p", []*ast.File{f})
	slices.Sort(got)
	want := []string{"const Bare", "const Naked", "field T.Field", "func Func", "method I.Call", "method T.Method", "type I", "var Global"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("undocumented:\n got %v\nwant %v", got, want)
	}
}

func undocumented(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	name := ""
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files, name = append(files, f), f.Name.Name
	}
	if len(files) == 0 {
		t.Fatalf("%s has no Go files", dir)
	}
	return missingDocs(fset, name, files)
}

// missingDocs lists the exported names go doc shows without a comment.
func missingDocs(fset *token.FileSet, name string, files []*ast.File) []string {
	d, err := doc.NewFromFiles(fset, files, "example.com/"+name)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	miss := func(what string) { out = append(out, what) }
	if strings.TrimSpace(d.Doc) == "" {
		miss("package " + name)
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, s := range v.Decl.Specs {
				spec := s.(*ast.ValueSpec)
				for _, n := range spec.Names {
					if n.IsExported() && v.Doc == "" && spec.Doc == nil && spec.Comment == nil {
						miss(v.Decl.Tok.String() + " " + n.Name)
					}
				}
			}
		}
	}
	funcs := func(prefix, what string, fs []*doc.Func) {
		for _, f := range fs {
			if strings.TrimSpace(f.Doc) == "" {
				miss(what + " " + prefix + f.Name)
			}
		}
	}
	values(d.Consts)
	values(d.Vars)
	funcs("", "func", d.Funcs)
	for _, ty := range d.Types {
		if strings.TrimSpace(ty.Doc) == "" {
			miss("type " + ty.Name)
		}
		values(ty.Consts)
		values(ty.Vars)
		funcs("", "func", ty.Funcs)
		for _, s := range ty.Decl.Specs {
			ts := s.(*ast.TypeSpec)
			var fields *ast.FieldList
			what := "field"
			switch x := ts.Type.(type) {
			case *ast.StructType:
				fields = x.Fields
			case *ast.InterfaceType:
				fields, what = x.Methods, "method"
			}
			if fields == nil {
				continue
			}
			for _, fl := range fields.List {
				for _, n := range fl.Names {
					if n.IsExported() && fl.Doc == nil && fl.Comment == nil {
						miss(what + " " + ty.Name + "." + n.Name)
					}
				}
			}
		}
		funcs(ty.Name+".", "method", ty.Methods)
	}
	return out
}
