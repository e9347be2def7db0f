package scenarios

import "testing"

// catalogue is every catalogue scenario, parsed, for the tests that go through
// them all.
func catalogue(t testing.TB) []*Scenario {
	t.Helper()
	cat, err := Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	if len(cat) == 0 {
		t.Fatal("the catalogue is empty")
	}
	return cat
}
