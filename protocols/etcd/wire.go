package etcd

import "slices"

// The payloads members send each other and write to disk hold memory (entries
// whose commands are pointers, messages behind pointers): each is a sim.Cloner,
// so the kernel gives every log, disk, delivery and the trace a copy of its own.
// An entry the leader appends and sends is not the object in its followers' logs.

func (c *cmd) Clone() any {
	d := *c
	return &d
}

func (es entries) Clone() any { return es.clone() }

func (es entries) clone() entries {
	out := slices.Clone(es)
	for i := range out {
		if out[i].Cmd != nil {
			out[i].Cmd = out[i].Cmd.Clone().(*cmd)
		}
	}
	return out
}

func (a *appMsg) Clone() any {
	c := *a
	c.Entries = a.Entries.clone()
	return &c
}

func (a *appResp) Clone() any {
	c := *a
	return &c
}

func (v *voteMsg) Clone() any {
	c := *v
	return &c
}

func (k *keepAlive) Clone() any {
	c := *k
	c.Reply = k.Reply.Clone()
	return &c
}
