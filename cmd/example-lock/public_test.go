package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// public are the packages of locksim a user's program may import: the
// documented public API (docs/your-protocol.md). The example imports nothing
// else of locksim: no internal package, no package of the built-in protocols'
// insides, and no tricks (unsafe, reflect, go:linkname) to reach what is not
// exported.
var public = []string{
	"sim", "sim/check", "sim/fault", "sim/simtest",
	"protocols/lockkit", "protocols/resource",
	"scenarios", "scenarios/proptest", "cmd/locksim/cli",
}

const module = "github.com/locksim/locksim/"

func TestTheExampleImportsOnlyPublicPackages(t *testing.T) {
	seen := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		seen++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			rel, ours := strings.CutPrefix(p, module)
			switch {
			case strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal"):
				t.Errorf("%s imports an internal package %s", path, p)
			case p == "unsafe" || p == "reflect":
				t.Errorf("%s imports %s: the example uses only what locksim exports", path, p)
			case ours && !strings.HasPrefix(rel, "cmd/example-lock") && !slices.Contains(public, rel):
				t.Errorf("%s imports %s, which is not one of locksim's public packages %v", path, p, public)
			}
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "//go:"+"linkname") {
					t.Errorf("%s reaches an unexported name with a linkname directive", path)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 8 {
		t.Errorf("read %d Go files, want the example's every file", seen)
	}
}
