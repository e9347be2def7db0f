package cli

import (
	"cmp"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
)

// Option configures the command line: the kinds it knows, its catalogue, its name.
type Option func(*settings)

type settings struct {
	name      string
	kinds     []scenarios.Kind
	catalogue fs.FS
}

// WithName is the program's name in its messages, usage and the replay
// commands it prints ("example-lock"; "locksim" by default).
func WithName(name string) Option { return func(s *settings) { s.name = name } }

// WithKinds registers process kinds besides the built-in ones: scenario files
// may declare them, and run, verify, the TUI and explore know them.
func WithKinds(kinds ...scenarios.Kind) Option {
	return func(s *settings) { s.kinds = append(s.kinds, kinds...) }
}

// WithCatalogue replaces the built-in catalogue with the scenarios (*.scn) at
// the root of fsys (an embed.FS's sub-folder, os.DirFS): what list, verify
// without arguments and the TUI's browser show, and the ids run and tui take.
// The explorer's built-in presets are left out with it: a program with its
// own catalogue explores its own files.
func WithCatalogue(fsys fs.FS) Option { return func(s *settings) { s.catalogue = fsys } }

// application is what the commands read: the registry their scenarios are
// parsed with, the catalogue, the name.
type application struct {
	name      string
	reg       *scenarios.Registry
	catalogue fs.FS // nil: the built-in catalogue
}

// app is the running command line's; Run sets it for its call.
var app = application{name: "locksim", reg: scenarios.Builtins()}

func newApp(opts ...Option) (application, error) {
	var s settings
	for _, o := range opts {
		o(&s)
	}
	a := application{name: cmp.Or(s.name, "locksim"), reg: scenarios.Builtins(), catalogue: s.catalogue}
	if len(s.kinds) > 0 {
		reg, err := a.reg.With(s.kinds...)
		if err != nil {
			return a, errors.Wrap(err, "registering kinds")
		}
		a.reg = reg
	}
	return a, nil
}

// scenarioCatalogue is the catalogue, parsed: the built-in one, or the
// program's own, in the order of its kinds' protocols, then by id.
func (a application) scenarioCatalogue() ([]*scenarios.Scenario, error) {
	if a.catalogue == nil {
		return scenarios.Catalogue()
	}
	entries, err := fs.ReadDir(a.catalogue, ".")
	if err != nil {
		return nil, errors.Wrap(err, "reading the catalogue")
	}
	var out []*scenarios.Scenario
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), scenarios.Ext) {
			continue
		}
		src, err := fs.ReadFile(a.catalogue, e.Name())
		if err != nil {
			return nil, errors.Wrapf(err, "reading %s", e.Name())
		}
		s, err := a.reg.Parse(path.Join("catalogue", e.Name()), string(src))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	rank := a.reg.Protocols()
	slices.SortStableFunc(out, func(x, y *scenarios.Scenario) int {
		if c := slices.Index(rank, x.Protocol) - slices.Index(rank, y.Protocol); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return out, nil
}

// load reads a scenario named by a file path or a catalogue id, as
// scenarios.Load does, with the program's kinds and catalogue.
func (a application) load(arg string) (*scenarios.Scenario, error) {
	if a.catalogue == nil && len(a.reg.Kinds()) == len(scenarios.Builtins().Kinds()) {
		return scenarios.Load(arg)
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		src, err := scenarios.ReadSource(arg)
		if err != nil {
			return nil, err
		}
		return a.reg.Parse(arg, src)
	}
	cat, err := a.scenarioCatalogue()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, s := range cat {
		if s.ID == arg {
			return s, nil
		}
		ids = append(ids, s.ID)
	}
	if _, err := os.Stat(arg); err != nil && !errors.Is(err, fs.ErrNotExist) {
		_, err = scenarios.ReadSource(arg) // says why the file cannot be read
		return nil, err
	}
	hint := "run `" + a.name + " list` for the catalogue (" + strings.Join(ids, ", ") + "), or give the path of a " + scenarios.Ext + " file"
	if s := scenarios.Closest(arg, ids); s != "" {
		hint = "did you mean " + s + "? " + hint
	}
	return nil, errors.Errorf("no scenario %q: it is neither a catalogue id nor a file\n  hint: %s", arg, hint)
}

// presets are the explorer's built-in templates, when the catalogue is the
// built-in one.
func (a application) presets() []string {
	if a.catalogue != nil {
		return nil
	}
	return explore.Presets()
}

// template reads a scenario file as an explore template, with the program's kinds.
func (a application) template(name, src string) (*explore.Template, error) {
	return explore.FromSourceIn(a.reg, name, src)
}

// catalogueSource is the text of the program's catalogue scenario id.
func (a application) catalogueSource(id string) (string, bool) {
	b, err := fs.ReadFile(a.catalogue, id+scenarios.Ext)
	return string(b), err == nil
}
