package plan

import (
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// ttlHints are the STATE_TTL hints of one SELECT (Flink 2.x,
// /*+ STATE_TTL('orders' = '1d', 'o2' = '12h') */): per table name or
// alias, the state TTL of the regular joins and group aggregates of that
// SELECT that read it; a join side or an aggregate whose input names no
// hinted table keeps 'table.exec.state.ttl'.
type ttlHints struct {
	ttl  map[string]int64
	keys []*ast.HintOption
	used map[string]bool
}

// planHintedSelect plans a SELECT with its STATE_TTL hints in effect
// (nested SELECTs have their own) and checks that every hinted table is
// an input of a join or aggregate of the SELECT.
func (p *Planner) planHintedSelect(s *ast.Select, st *stmt) (*frag, error) {
	saved := p.ttlHints
	defer func() { p.ttlHints = saved }()
	p.ttlHints = nil
	for _, h := range s.Hints {
		if h.Name != "STATE_TTL" {
			continue
		}
		if p.ttlHints == nil {
			p.ttlHints = &ttlHints{ttl: map[string]int64{}, used: map[string]bool{}}
		}
		for _, o := range h.Options {
			if o.Value == "" {
				return nil, errAt(o.Pos(), sqlerr.InvalidArgument, "Invalid STATE_TTL hint: the option '%s' has no value", o.Key).
					WithHint("write STATE_TTL('%s' = '1d')", o.Key)
			}
			d, err := ParseDuration(o.Value)
			if err != nil || d < 0 {
				return nil, errAt(o.Pos(), sqlerr.InvalidArgument, "Invalid STATE_TTL hint value '%s' for '%s': use a duration such as '1d', '12 h' or '30 min'", o.Value, o.Key)
			}
			if _, dup := p.ttlHints.ttl[o.Key]; dup {
				return nil, errAt(o.Pos(), sqlerr.InvalidArgument, "Duplicate key '%s' in the STATE_TTL hint", o.Key)
			}
			p.ttlHints.ttl[o.Key] = int64(d)
			p.ttlHints.keys = append(p.ttlHints.keys, o)
		}
	}
	h := p.ttlHints
	f, err := p.planSelect(s, st)
	if err != nil || h == nil {
		return f, err
	}
	for _, o := range h.keys {
		if !h.used[o.Key] {
			return nil, errAt(o.Pos(), sqlerr.InvalidArgument, "The options of following hints cannot match the name of input tables or views: \n`%s` in `STATE_TTL`", o.Key).
				WithHint("name a table (or its alias) that a join or a GROUP BY of this SELECT reads")
		}
	}
	return f, nil
}

// hintedTTL returns the STATE_TTL hint for an operator whose input has
// the columns of sc: the hint of a table (name or alias) its columns come
// from; ok is false when none is hinted.
func (p *Planner) hintedTTL(sc *scope) (ttl int64, ok bool) {
	h := p.ttlHints
	if h == nil || sc == nil {
		return 0, false
	}
	for _, c := range sc.cols {
		if d, found := h.ttl[c.qualifier]; found && c.qualifier != "" {
			h.used[c.qualifier] = true
			if !ok {
				ttl, ok = d, true
			}
		}
	}
	return ttl, ok
}
