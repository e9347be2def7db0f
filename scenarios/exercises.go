package scenarios

import (
	"embed"
	"os"
	"path"
	"strings"

	"github.com/pkg/errors"
)

// The exercises: scenarios with a budget of faults and a goal, embedded like
// the catalogue (docs/exercises.md). Their intended answers are in
// testdata/exercise-solutions/, out of students' reach.
//
//go:embed exercises/*.scn
var exercisesFS embed.FS

// Exercises parses every embedded exercise, in id order.
func Exercises() ([]*Scenario, error) {
	entries, err := exercisesFS.ReadDir("exercises")
	if err != nil {
		return nil, errors.Wrap(err, "reading the embedded exercises")
	}
	var out []*Scenario
	for _, e := range entries {
		src, err := exercisesFS.ReadFile(path.Join("exercises", e.Name()))
		if err != nil {
			return nil, err
		}
		s, err := Parse(path.Join("exercises", e.Name()), string(src))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// ExerciseSource returns an embedded exercise's text.
func ExerciseSource(id string) (string, bool) {
	b, err := exercisesFS.ReadFile("exercises/" + id + Ext)
	return string(b), err == nil
}

// LoadExercise reads an exercise named by its id or a file path.
func LoadExercise(arg string) (*Scenario, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return Load(arg)
	}
	all, err := Exercises()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, s := range all {
		if s.ID == arg {
			return s, nil
		}
		ids = append(ids, s.ID)
	}
	hint := "exercises: " + strings.Join(ids, ", ")
	if s := closest(arg, ids); s != "" {
		hint = "did you mean " + s + "? " + hint
	}
	return nil, errors.Errorf("no exercise %s: it is neither an exercise id nor a file\n  hint: %s", quote(arg), hint)
}
