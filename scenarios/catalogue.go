package scenarios

import (
	"embed"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pkg/errors"
)

// The catalogue: one file per published result, embedded in the binary.
//
//go:embed catalogue/*.scn
var catalogueFS embed.FS

// Ext is the scenario files' extension.
const Ext = ".scn"

// Catalogue parses every embedded scenario, grouped by protocol in the order a
// course takes them (the order of the kinds: Redis, Redlock, ZooKeeper, etcd),
// then in id order. A catalogue file that does not parse is a bug in the build,
// caught by the tests.
func Catalogue() ([]*Scenario, error) {
	entries, err := catalogueFS.ReadDir("catalogue")
	if err != nil {
		return nil, errors.Wrap(err, "reading the embedded catalogue")
	}
	var out []*Scenario
	for _, e := range entries {
		src, err := catalogueFS.ReadFile(path.Join("catalogue", e.Name()))
		if err != nil {
			return nil, errors.Wrapf(err, "reading %s", e.Name())
		}
		s, err := Parse(path.Join("catalogue", e.Name()), string(src))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	rank := protocols()
	slices.SortFunc(out, func(a, b *Scenario) int {
		if c := slices.Index(rank, a.Protocol) - slices.Index(rank, b.Protocol); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// CatalogueSource returns a catalogue scenario's text.
func CatalogueSource(id string) (string, bool) {
	b, err := catalogueFS.ReadFile("catalogue/" + id + Ext)
	return string(b), err == nil
}

// Load reads a scenario named by a catalogue id or a file path. A path that exists
// wins over an id; anything else gets an error with a hint.
func Load(arg string) (*Scenario, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		src, err := os.ReadFile(arg)
		if err != nil {
			return nil, errors.Wrapf(err, "reading scenario %s", arg)
		}
		return Parse(arg, string(src))
	}
	cat, err := Catalogue()
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(cat))
	for i, s := range cat {
		if s.ID == arg {
			return s, nil
		}
		ids[i] = s.ID
	}
	hint := "run `locksim list` for the catalogue, or give the path of a " + Ext + " file"
	if s := closest(arg, ids); s != "" {
		hint = "did you mean " + s + "? " + hint
	}
	return nil, errors.Errorf("no scenario %q: it is neither a catalogue id nor a file\n  hint: %s", arg, hint)
}

// Control loads the scenario this one names with compare-with: a path relative
// to this scenario's own file when there is one, else a catalogue id (or a path
// from the working directory).
func (s *Scenario) Control() (*Scenario, error) {
	if s.CompareWith == "" {
		return nil, errors.Errorf("%s names no scenario to compare with\n  hint: add a line compare-with ID to it, or give one: --vs ID|FILE", s.ID)
	}
	if !strings.HasPrefix(s.File, "catalogue/") {
		rel := filepath.Join(filepath.Dir(s.File), s.CompareWith)
		if st, err := os.Stat(rel); err == nil && !st.IsDir() {
			return Load(rel)
		}
	}
	c, err := Load(s.CompareWith)
	return c, errors.Wrapf(err, "%s: compare-with %s", s.File, s.CompareWith)
}
