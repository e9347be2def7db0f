package scenarios

import (
	"strings"
	"testing"
)

// The exercise lines (docs/exercises.md) refuse what an author almost surely
// did not mean, at its line and column, with a hint.
func TestExerciseLinesRefuseMistakes(t *testing.T) {
	base := "node r1 redis\nclient c1 redis-lock server=r1\nat 0s c1 acquire L ttl=10s\nrun until=5s\n"
	for _, tc := range []struct{ add, want string }{
		{"allow pauze 1 on=c1 for=1s\ngoal unsafe\n", "5:7: cannot allow \"pauze\"\n  hint: did you mean pause?"},
		{"allow pause 1 on=c9 for=1s\ngoal unsafe\n", "5:1: allow names \"c9\", which the scenario does not declare"},
		{"allow pause 9 on=c1 for=1s\ngoal unsafe\n", "5:13: \"9\" is not a number of faults"},
		{"allow pause 1 on=c1 for=soon\ngoal unsafe\n", "is not a size here"},
		{"allow pause 1 on=c1 for=1s\n", "an exercise (allow, hint or proved lines) needs a goal line"},
		{"allow pause 1 on=c1 for=1s\ngoal violate mutex-beleif\n", "unknown invariant \"mutex-beleif\"\n  hint: did you mean mutex-belief?"},
		{"allow option c1 release\ngoal unsafe\n", "allow option does not fit goal unsafe"},
		{"allow pause 1 on=c1 for=1s\ngoal safe\n", "allow pause does not fit goal safe"},
		{"allow pause 1 on=c1\ngoal unsafe\n", "5:20: missing for=: the sizes a student may choose"},
		{"goal unsafe\ngoal stuck\n", "goal is given twice"},
		{"goal unsafe\nhint \"a\" \"b\"\n", "a hint is one quoted text"},
	} {
		_, err := Parse("ex.scn", base+tc.add)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.add, err, tc.want)
		}
	}
	s, err := Parse("ex.scn", base+"allow pause 1 on=c1 for=1s,5s\ngoal violate mutex-belief\nhint \"a=b is fine in a hint\"\n")
	if err != nil || !s.IsExercise() || s.Exercise.Hints[0] != "a=b is fine in a hint" || s.Exercise.Allows[0].String() != "allow pause 1 on=c1 for=1s,5s" {
		t.Errorf("a good exercise: %v %+v", err, s.Exercise)
	}
}
