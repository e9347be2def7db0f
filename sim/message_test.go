package sim

import "testing"

// A message's numbers are named by the protocol (Arg); the text form shows
// those set with With, first slot first, and leaves out those only carried.
// Trace hashes are made from this text, so it must not move.
func TestMessageNumbersInTheText(t *testing.T) {
	const ttl, owner = Num1, Num2
	cases := []struct {
		m    Message
		want string
	}{
		{Message{Op: "SET", Key: "L", Value: "c1#1", Opts: "NX PX"}.With(ttl, 10000), "SET L c1#1 NX PX 10000"},
		{Message{Op: "SET", Key: "L"}.With(owner, 3).With(ttl, 7), "SET L 7 3"},
		{Message{Op: "TTL", Value: "lease 5"}.Carrying(ttl, 5), "TTL lease 5"},
		{Message{Op: "DELETE"}.With(owner, 0), "DELETE 0"},
	}
	for _, c := range cases {
		if got := c.m.String(); got != c.want {
			t.Errorf("%#v: text %q, want %q", c.m, got, c.want)
		}
	}
	m := Message{}.Carrying(ttl, 5).With(owner, 0)
	if m.Num(ttl) != 5 || m.Has(ttl) || !m.Has(owner) || m.Num(owner) != 0 {
		t.Errorf("Num/Has: %#v", m)
	}
}
