package scenarios

import (
	"embed"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/pkg/errors"

	"github.com/locksim/locksim/sim"
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
	rank := builtins.Protocols()
	slices.SortFunc(out, func(a, b *Scenario) int {
		if c := slices.Index(rank, a.Protocol) - slices.Index(rank, b.Protocol); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// CatalogueIDs lists the catalogue's ids, in file order, without parsing them.
func CatalogueIDs() []string {
	entries, _ := catalogueFS.ReadDir("catalogue")
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		ids = append(ids, strings.TrimSuffix(e.Name(), Ext))
	}
	return ids
}

// CatalogueSource returns a catalogue scenario's text.
func CatalogueSource(id string) (string, bool) {
	b, err := catalogueFS.ReadFile("catalogue/" + id + Ext)
	return string(b), err == nil
}

// MaxSourceBytes is the largest scenario the loader reads: 4 MB, over five times
// what ten thousand processes with an action each take, and hundreds of times the
// largest catalogue scenario. A larger input is a mistake (a log, a binary, a
// device). Parsing costs up to about 190 times the input (a file of the shortest
// action lines, `at 0 heal`, each a scheduled action kept by the scenario and the
// world): at 4 MB that is 0.75 GB, at 8 MB it was 1.5 GB.
const MaxSourceBytes = 4_000_000

// ReadSource reads a scenario file. It refuses a directory, a file larger than
// MaxSourceBytes, and a device or pipe that does not end within as many bytes
// (/dev/zero), each with an error that says which; a pipe that does end (a
// shell's <(...)) is read like a file.
func ReadSource(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fileError(path, err)
	}
	limit := sim.FormatBytes(MaxSourceBytes)
	switch {
	case st.IsDir():
		return "", dirError(path)
	case st.Mode().IsRegular() && st.Size() > MaxSourceBytes:
		return "", errors.Errorf("%s is %s: a scenario file may have at most %s\n  hint: is it really a scenario? A scenario is a short text file", path, sim.FormatBytes(st.Size()), limit)
	}
	pipe := st.Mode()&os.ModeNamedPipe != 0
	var f *os.File
	if pipe {
		f, err = openPipe(path)
	} else {
		f, err = os.Open(path)
	}
	if err != nil {
		return "", fileError(path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxSourceBytes+1))
	if err != nil {
		return "", fileError(path, err)
	}
	if len(b) > MaxSourceBytes {
		return "", errors.Errorf("%s does not end within %s: it is not a regular file, and a scenario may have at most %s\n  hint: give the path of a %s file", path, limit, limit, Ext)
	}
	return string(b), nil
}

// errNoWriter is a named pipe nothing wrote to within pipeWait.
var errNoWriter = errors.New("nothing wrote to it")

// fileError says why a scenario file could not be read, with a hint for each
// reason a person can act on.
func fileError(path string, err error) error {
	p := Shown(path)
	switch {
	case errors.Is(err, errNoWriter):
		return errors.Errorf("%s is a named pipe (FIFO), and nothing wrote to it within %s\n  hint: write the scenario into it as you run locksim (cat s.scn > %s &), or give the path of a %s file", p, pipeWait, ShellWord(path), Ext)
	case os.IsTimeout(err):
		return errors.Errorf("%s is a pipe that sent no scenario within %s\n  hint: give the path of a %s file", p, pipeWait, Ext)
	case errors.Is(err, fs.ErrPermission):
		return errors.Errorf("%s: permission denied: locksim may not read it\n  hint: check its permissions and those of its folders (ls -l %s); chmod u+r %s lets you read it", p, ShellWord(path), ShellWord(path))
	case errors.Is(err, syscall.ELOOP):
		return errors.Errorf("%s is a symbolic link that leads back to itself (a loop)\n  hint: see where it points with ls -l %s, and point it at a %s file", p, ShellWord(path), Ext)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return errors.Errorf("the path %s is too long for this system\n  hint: give a shorter path to a %s file", short(p), Ext)
	case errors.Is(err, syscall.ENOTDIR):
		return errors.Errorf("%s: a folder in this path is a file\n  hint: check the path", p)
	}
	return errors.Wrapf(err, "reading scenario %s", p)
}

func dirError(path string) error {
	return errors.Errorf("%s is a directory, not a scenario file\n  hint: give the path of a %s file, or a catalogue id (locksim list)", path, Ext)
}

// Load reads a scenario named by a catalogue id or a file path. A path that exists
// wins over an id (a directory only where no id matches); anything else gets an
// error with a hint.
func Load(arg string) (*Scenario, error) {
	st, err := os.Stat(arg)
	statErr := err
	if err == nil && !st.IsDir() {
		src, err := ReadSource(arg)
		if err != nil {
			return nil, err
		}
		return Parse(arg, src)
	}
	// Only the scenario asked for is parsed, not the whole catalogue: a
	// comparison loads its pair's other half this way.
	if src, ok := CatalogueSource(arg); ok && !strings.ContainsAny(arg, `/\`) {
		return Parse(path.Join("catalogue", arg+Ext), src)
	}
	ids := CatalogueIDs()
	if st != nil {
		return nil, dirError(arg)
	}
	if src, ok := ExerciseSource(arg); ok { // an exercise runs as any scenario does
		return Parse("exercises/"+arg+Ext, src)
	}
	if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) { // a file is there, or may be, but cannot be read
		return nil, fileError(arg, statErr)
	}
	hint := "run `locksim list` for the catalogue, or give the path of a " + Ext + " file"
	if s := closest(arg, ids); s != "" {
		hint = "did you mean " + s + "? " + hint
	}
	return nil, errors.Errorf("no scenario %s: it is neither a catalogue id nor a file\n  hint: %s", quote(arg), hint)
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
