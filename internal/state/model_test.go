package state

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// model is a plain-map reference implementation of the Backend semantics.
type model struct {
	values map[[3]string]string
	lists  map[[3]string][]string
	maps   map[[3]string]map[string]string
	timers map[string]map[Timer2]bool // ns -> timers
}

// Timer2 is a comparable Timer.
type Timer2 struct {
	Key, Name string
	Time      int64
}

func newModel() *model {
	return &model{
		values: map[[3]string]string{}, lists: map[[3]string][]string{},
		maps: map[[3]string]map[string]string{}, timers: map[string]map[Timer2]bool{},
	}
}

func sortTimers(ts []Timer2) {
	slices.SortFunc(ts, func(a, b Timer2) int {
		return cmp.Or(cmp.Compare(a.Time, b.Time), strings.Compare(a.Key, b.Key), strings.Compare(a.Name, b.Name))
	})
}

func fmtTimers(ts []Timer) string {
	var sb strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&sb, "(%q,%q,%d)", t.Key, t.Name, t.Time)
	}
	return sb.String()
}

func fmtTimers2(ts []Timer2) string {
	var sb strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&sb, "(%q,%q,%d)", t.Key, t.Name, t.Time)
	}
	return sb.String()
}

// TestRandomOpsAgainstModel applies random operations to every backend and
// to the model and requires identical results.
func TestRandomOpsAgainstModel(t *testing.T) {
	nss := []string{"n", "n\x00", "nn"}
	keys := []string{"", "a", "a\x00", "ab", "b"}
	names := []string{"x", "y"}
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			hs := make([]harness, len(configs))
			for i, c := range configs {
				hs[i] = c.new(t)
			}
			m := newModel()
			rng := rand.New(rand.NewPCG(seed, 42))
			pick := func(s []string) string { return s[rng.IntN(len(s))] }
			for step := range 2000 {
				ns, key, name := pick(nss), pick(keys), pick(names)
				op := rng.IntN(22)
				val := fmt.Sprint(step)
				idx := rng.IntN(4) - 1
				tt := int64(rng.IntN(6) - 2)
				tname := []string{"", "", "t1", "t2"}[rng.IntN(4)]
				want := m.apply(op, ns, name, key, val, idx, tt, tname)
				for i, h := range hs {
					got := apply(h.b, op, ns, name, key, val, idx, tt, tname)
					require.Equal(t, want, got, "seed %d step %d op %d on %s", seed, step, op, configs[i].name)
					if rng.IntN(50) == 0 {
						h.checkpoint()
					}
				}
			}
		})
	}
}

func errString(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrOutOfRange):
		return "out of range"
	default:
		return "error"
	}
}

// apply runs operation op on a backend and renders the result.
func apply(b Backend, op int, ns, name, key, val string, idx int, t int64, tname string) string {
	k := []byte(key)
	switch op {
	case 0:
		v, ok, err := b.Get(ns, name, k)
		return fmt.Sprintf("%q %v %s", v, ok, errString(err))
	case 1, 2:
		return errString(b.Put(ns, name, k, []byte(val)))
	case 3:
		return errString(b.Delete(ns, name, k))
	case 4:
		n, err := b.ListLen(ns, name, k)
		return fmt.Sprintf("%d %s", n, errString(err))
	case 5:
		v, err := b.ListGet(ns, name, k, idx)
		return fmt.Sprintf("%q %s", v, errString(err))
	case 6, 7:
		return errString(b.ListAppend(ns, name, k, []byte(val)))
	case 8:
		return errString(b.ListSet(ns, name, k, idx, []byte(val)))
	case 9:
		return errString(b.ListRemoveFirst(ns, name, k, max(idx, 0)))
	case 10:
		var sb strings.Builder
		err := b.ListRange(ns, name, k, func(i int, v []byte) error {
			fmt.Fprintf(&sb, "%d=%s,", i, v)
			return nil
		})
		return sb.String() + errString(err)
	case 11:
		return errString(b.ListClear(ns, name, k))
	case 12, 13:
		return errString(b.MapPut(ns, name, k, []byte(val[len(val)-1:]), []byte(val)))
	case 14:
		v, ok, err := b.MapGet(ns, name, k, []byte(val[len(val)-1:]))
		return fmt.Sprintf("%q %v %s", v, ok, errString(err))
	case 15:
		return errString(b.MapDelete(ns, name, k, []byte(val[len(val)-1:])))
	case 16:
		var sb strings.Builder
		err := b.MapRange(ns, name, k, func(mk, v []byte) error {
			fmt.Fprintf(&sb, "%s=%s,", mk, v)
			return nil
		})
		return sb.String() + errString(err)
	case 17:
		if idx == 0 {
			return errString(b.MapClear(ns, name, k))
		}
		return errString(b.ClearKey(ns, k))
	case 18:
		return errString(b.RegisterTimer(ns, k, tname, t))
	case 19:
		switch {
		case idx == 2:
			return errString(b.DeleteAllTimers(ns, k))
		case tname == "":
			return errString(b.DeleteUnnamedTimer(ns, k, t))
		default:
			return errString(b.DeleteTimer(ns, k, tname))
		}
	case 20:
		ts, err := b.Timers(ns, k)
		return fmtTimers(ts) + errString(err)
	default:
		ts, err := b.PopDue(ns, t, max(idx, 0))
		return fmtTimers(ts) + errString(err)
	}
}

// apply runs operation op on the model.
func (m *model) apply(op int, ns, name, key, val string, idx int, t int64, tname string) string {
	id := [3]string{ns, name, key}
	list := m.lists[id]
	mp := m.maps[id]
	switch op {
	case 0:
		v, ok := m.values[id]
		if !ok {
			return fmt.Sprintf("%q %v ok", []byte(nil), false)
		}
		return fmt.Sprintf("%q %v ok", []byte(v), true)
	case 1, 2:
		m.values[id] = val
		return "ok"
	case 3:
		delete(m.values, id)
		return "ok"
	case 4:
		return fmt.Sprintf("%d ok", len(list))
	case 5:
		if idx < 0 || idx >= len(list) {
			return fmt.Sprintf("%q out of range", []byte(nil))
		}
		return fmt.Sprintf("%q ok", []byte(list[idx]))
	case 6, 7:
		m.lists[id] = append(list, val)
		return "ok"
	case 8:
		if idx < 0 || idx >= len(list) {
			return "out of range"
		}
		list[idx] = val
		return "ok"
	case 9:
		m.lists[id] = list[min(max(idx, 0), len(list)):]
		return "ok"
	case 10:
		var sb strings.Builder
		for i, v := range list {
			fmt.Fprintf(&sb, "%d=%s,", i, v)
		}
		return sb.String() + "ok"
	case 11:
		delete(m.lists, id)
		return "ok"
	case 12, 13:
		if mp == nil {
			mp = map[string]string{}
			m.maps[id] = mp
		}
		mp[val[len(val)-1:]] = val
		return "ok"
	case 14:
		v, ok := mp[val[len(val)-1:]]
		if !ok {
			return fmt.Sprintf("%q %v ok", []byte(nil), false)
		}
		return fmt.Sprintf("%q %v ok", []byte(v), true)
	case 15:
		delete(mp, val[len(val)-1:])
		return "ok"
	case 16:
		var sb strings.Builder
		for _, mk := range slices.Sorted(maps.Keys(mp)) {
			fmt.Fprintf(&sb, "%s=%s,", mk, mp[mk])
		}
		return sb.String() + "ok"
	case 17:
		if idx == 0 {
			delete(m.maps, id)
			return "ok"
		}
		for _, mm := range []map[[3]string]string{m.values} {
			for k := range mm {
				if k[0] == ns && k[2] == key {
					delete(mm, k)
				}
			}
		}
		for k := range m.lists {
			if k[0] == ns && k[2] == key {
				delete(m.lists, k)
			}
		}
		for k := range m.maps {
			if k[0] == ns && k[2] == key {
				delete(m.maps, k)
			}
		}
		return "ok"
	case 18:
		ts := m.timers[ns]
		if ts == nil {
			ts = map[Timer2]bool{}
			m.timers[ns] = ts
		}
		if tname != "" {
			for x := range ts {
				if x.Key == key && x.Name == tname {
					delete(ts, x)
				}
			}
		}
		ts[Timer2{key, tname, t}] = true
		return "ok"
	case 19:
		for x := range m.timers[ns] {
			if x.Key != key {
				continue
			}
			switch {
			case idx == 2:
				delete(m.timers[ns], x)
			case tname == "":
				if x.Name == "" && x.Time == t {
					delete(m.timers[ns], x)
				}
			case x.Name == tname:
				delete(m.timers[ns], x)
			}
		}
		return "ok"
	case 20:
		var ts []Timer2
		for x := range m.timers[ns] {
			if x.Key == key {
				ts = append(ts, x)
			}
		}
		sortTimers(ts) // one key: (time, name) order
		return fmtTimers2(ts) + "ok"
	default:
		var ts []Timer2
		for x := range m.timers[ns] {
			if x.Time <= t {
				ts = append(ts, x)
			}
		}
		sortTimers(ts)
		if limit := max(idx, 0); limit > 0 && len(ts) > limit {
			ts = ts[:limit]
		}
		for _, x := range ts {
			delete(m.timers[ns], x)
		}
		return fmtTimers2(ts) + "ok"
	}
}
