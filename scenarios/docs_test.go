package scenarios

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim/fault"
)

// docsSections splits docs/scenario-language.md into its ### sections: heading
// -> the first words of the first cell of each table row ("`ttl=DUR`" gives
// "ttl=DUR").
func docsSections(t *testing.T) (order []string, rows map[string][]string) {
	t.Helper()
	b, err := os.ReadFile("../docs/scenario-language.md")
	if err != nil {
		t.Fatal(err)
	}
	cell := regexp.MustCompile("^\\| `([^`]*)`")
	rows = map[string][]string{}
	h, top := "", ""
	for _, ln := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(ln, "## "):
			top, h = strings.TrimPrefix(ln, "## "), ""
		case strings.HasPrefix(ln, "### "):
			h = top + " / " + strings.TrimPrefix(ln, "### ")
			order = append(order, h)
		case h != "":
			if m := cell.FindStringSubmatch(ln); m != nil {
				rows[h] = append(rows[h], m[1])
			}
		}
	}
	return order, rows
}

// The reference tables of docs/scenario-language.md agree with the registry:
// every kind has its section, whose table lists exactly the arguments its
// Build reads; the client commands and the fault actions are exactly the
// verbs the registry and sim/fault know. A kind, argument or verb added
// without its docs fails here, and so do docs that name one the registry
// lacks.
func TestDocsTablesMatchTheRegistry(t *testing.T) {
	order, rows := docsSections(t)
	reg := Builtins()
	documented := map[string]bool{}
	for _, h := range order {
		rest, ok := strings.CutPrefix(h, "Process kinds / ")
		if !ok {
			continue
		}
		f := strings.Fields(rest) // node NAME redis, resource NAME
		decl, name := f[0], f[len(f)-1]
		if decl == DeclResource {
			name = DeclResource
		}
		if _, ok := reg.Lookup(decl, name); !ok {
			t.Errorf("docs/scenario-language.md documents %q, which the registry lacks", rest)
			continue
		}
		documented[decl+" "+name] = true
		var got []string
		for _, r := range rows[h] {
			k, _, _ := strings.Cut(r, "=")
			got = append(got, k)
		}
		var want []string
		for _, a := range reg.Args(decl, name) {
			want = append(want, a.Name)
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s %s: docs list arguments %v, its Build reads %v", decl, name, got, want)
		}
	}
	for _, k := range reg.Kinds() {
		if !documented[k.Decl+" "+k.Name] {
			t.Errorf("kind %s %s has no section under Process kinds in docs/scenario-language.md", k.Decl, k.Name)
		}
	}

	verbs := func(h string) []string {
		var vs []string
		for _, r := range rows[h] {
			f := strings.Fields(r)
			v := f[0]
			if v == "CLIENT" {
				v = f[1]
			}
			if !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
		sort.Strings(vs)
		return vs
	}
	commands := reg.allVerbs()
	sort.Strings(commands)
	if got := verbs("Actions / Client commands"); !slices.Equal(got, commands) {
		t.Errorf("docs' client commands %v, the registry's verbs %v", got, commands)
	}
	var faults []string
	for _, h := range []string{"Actions / Process faults", "Actions / Network faults", "Actions / Failover"} {
		faults = append(faults, verbs(h)...)
	}
	sort.Strings(faults)
	want := slices.Clone(fault.Verbs)
	for _, v := range reg.faultVerbs() {
		if !slices.Contains(want, v) {
			want = append(want, v)
		}
	}
	sort.Strings(want)
	if !slices.Equal(faults, want) {
		t.Errorf("docs' fault actions %v, sim/fault's and the registry's %v", faults, want)
	}
}
