package engine

import (
	"strings"

	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// stateSchemaOf describes the state of a plan's PTF calls: per call
// "uid{entry:schema,...}", joined by ";" (Outcome.StateSchema).
func stateSchemaOf(p *plan.QueryPlan) string {
	calls := p.Job.PTFs()
	if len(calls) == 0 {
		return ""
	}
	var schemas []string
	for _, f := range calls {
		var parts []string
		for _, s := range f.Def.State {
			parts = append(parts, s.StateName()+":"+s.StateSchema())
		}
		schemas = append(schemas, f.UID+"{"+strings.Join(parts, ",")+"}")
	}
	return strings.Join(schemas, ";")
}

// splitTop splits s at sep where it is not nested in {} or [].
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// parseStateSchema reads a stateSchemaOf string into uid -> entry ->
// schema.
func parseStateSchema(s string) map[string]map[string]string {
	out := map[string]map[string]string{}
	if s == "" {
		return out
	}
	for _, call := range splitTop(s, ';') {
		open := strings.IndexByte(call, '{')
		if open < 0 || !strings.HasSuffix(call, "}") {
			continue
		}
		uid, body := call[:open], call[open+1:len(call)-1]
		entries := map[string]string{}
		if body != "" {
			for _, e := range splitTop(body, ',') {
				name, schema, _ := strings.Cut(e, ":")
				entries[name] = schema
			}
		}
		out[uid] = entries
	}
	return out
}

// CompatibleState checks that state written under the state schema old
// (Outcome.StateSchema) can be read by a plan of schema next; see
// compatibleState.
func CompatibleState(old, next string) error { return compatibleState(old, next) }

// compatibleState checks that state written under the schema old can be
// read by a plan of schema next: every entry both declare keeps its type.
// Entries a function adds start empty, and the state of removed entries
// or calls is ignored.
func compatibleState(old, next string) error {
	o, n := parseStateSchema(old), parseStateSchema(next)
	for uid, entries := range n {
		before, ok := o[uid]
		if !ok {
			continue
		}
		for name, schema := range entries {
			if was, ok := before[name]; ok && was != schema {
				return sqlerr.Newf(sqlerr.Runtime, "Cannot resume: state entry '%s' of the process table function call '%s' was written as %s, but the function now declares it as %s, so the saved state cannot be read", name, uid, was, schema).
					WithHint("bind the function to a version with the same state type (CREATE FUNCTION ... USING JAR 'eddy-artifact://art-…/ver-N'), or delete the statement and create it again to start without state")
			}
		}
	}
	return nil
}
