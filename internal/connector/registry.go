package connector

import (
	"fmt"
	"sort"
	"strings"

	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// Registry holds the connector factories of an engine, by identifier. The
// planner finds a table's connector here; nothing else in the planner or
// the engine knows a connector by name. A Registry is safe for concurrent
// reads once built.
type Registry struct {
	byID map[string]Factory
}

// NewRegistry returns a registry of the factories; two with the same
// identifier are an error.
func NewRegistry(factories ...Factory) (*Registry, error) {
	r := &Registry{byID: map[string]Factory{}}
	for _, f := range factories {
		if err := r.Register(f); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds a factory.
func (r *Registry) Register(f Factory) error {
	id := f.Spec().Identifier
	if id == "" {
		return fmt.Errorf("registering a connector without an identifier")
	}
	if _, dup := r.byID[id]; dup {
		return fmt.Errorf("connector %q is registered twice", id)
	}
	r.byID[id] = f
	return nil
}

// Lookup returns the factory of a 'connector' value.
func (r *Registry) Lookup(id string) (Factory, bool) {
	if r == nil {
		return nil, false
	}
	f, ok := r.byID[id]
	if !ok {
		f, ok = r.byID[strings.ToLower(strings.TrimSpace(id))]
	}
	return f, ok
}

// Identifiers returns the registered identifiers, sorted.
func (r *Registry) Identifiers() []string {
	if r == nil {
		return nil
	}
	out := make([]string, 0, len(r.byID))
	for id := range r.byID {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Factory returns the factory of a 'connector' value, or an error about
// the option 'connector' that lists the available ones.
func (r *Registry) Factory(id string) (Factory, error) {
	if f, ok := r.Lookup(id); ok {
		return f, nil
	}
	ids := r.Identifiers()
	e := &OptionError{Key: "connector", Err: sqlerr.Newf(sqlerr.Unsupported, "Connector '%s' is not available in this version of Eddy", id)}
	hint := "available connectors: " + strings.Join(ids, ", ")
	if s := sqlerr.Closest(id, ids, 3); s != "" {
		hint += "; did you mean '" + s + "'?"
	}
	return nil, e.WithHint("%s; omit 'connector' to create an Eddy log table (like a topic in Confluent Cloud)", hint)
}

// Validate checks a connector table against its factory's declarations
// and then the factory's own rules: every option is declared (an unknown
// one gets a "did you mean"), values have their declared type, required
// options are present, metadata columns use declared keys (read-only ones
// VIRTUAL), PARTITIONED BY only where the connector supports it. Errors
// are *OptionError.
func (r *Registry) Validate(t *Table) (Factory, error) {
	f, err := r.Factory(t.Options["connector"])
	if err != nil {
		return nil, err
	}
	spec := f.Spec()
	keys := make([]string, 0, len(t.Options))
	for k := range t.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o, ok := spec.Option(k)
		if !ok {
			return nil, unknownOption(spec, t, k)
		}
		if err := o.checkValue(k, t.Options[k]); err != nil {
			return nil, err
		}
	}
	for _, o := range spec.Options {
		if o.Required && !o.isPattern() {
			if _, ok := t.Options[o.Key]; !ok {
				return nil, NewOptionError(o.Key, "Table '%s' needs the option '%s'", t.FullName, o.Key).
					WithHint("add '%s' = '...' to WITH (...)", o.Key)
			}
		}
	}
	for _, m := range t.Metadata {
		if err := checkMetadata(spec, m); err != nil {
			return nil, err
		}
	}
	if len(t.PartitionKeys) > 0 && !spec.Partitioned {
		return nil, ClauseError(ClausePartitioned, sqlerr.Unsupported, "Connector '%s' does not write partitions, so its tables cannot be PARTITIONED BY", spec.Identifier).
			WithHint("remove PARTITIONED BY; the 'filesystem' connector writes partitioned tables")
	}
	if err := f.Validate(t); err != nil {
		return nil, err
	}
	return f, nil
}

func unknownOption(spec *Spec, t *Table, key string) error {
	var cols []string
	for _, c := range t.Columns {
		cols = append(cols, c.Name)
	}
	var candidates, listed []string
	group, _, grouped := strings.Cut(key, ".")
	for i := range spec.Options {
		o := &spec.Options[i]
		candidates = append(candidates, o.instances(cols, spec.Formats)...)
		if !grouped || strings.HasPrefix(o.Key, group+".") {
			listed = append(listed, o.Key)
		}
	}
	if len(listed) == 0 {
		for _, o := range spec.Options {
			listed = append(listed, o.Key)
		}
	}
	e := NewOptionError(key, "Unsupported option '%s' for connector '%s'", key, spec.Identifier)
	if s := suggestOption(key, candidates); s != "" {
		return e.WithHint("%s", s)
	}
	return e.WithHint("supported options: %s", strings.Join(listed, ", "))
}

func checkMetadata(spec *Spec, c MetaColumn) error {
	if len(spec.Metadata) == 0 {
		return ColumnError(c.Name, sqlerr.InvalidOption, "Column '%s': the %s connector has no metadata columns", c.Name, spec.Identifier).
			WithHint("declare a physical column, or a computed column over the others")
	}
	m, ok := spec.Metadatum(c.Key)
	if !ok {
		var keys []string
		for _, m := range spec.Metadata {
			keys = append(keys, m.Key)
		}
		sort.Strings(keys)
		hint := strings.Join(keys, ", ")
		if s := sqlerr.Closest(c.Key, keys, 4); s != "" {
			hint += "; did you mean '" + s + "'?"
		}
		return ColumnError(c.Name, sqlerr.InvalidOption, "Unknown metadata key '%s' for connector '%s'", c.Key, spec.Identifier).
			WithHint("the connector provides: %s", hint)
	}
	if !m.Writable && !c.Virtual {
		return ColumnError(c.Name, sqlerr.InvalidOption, "Metadata column '%s' ('%s') is read-only, so it must be VIRTUAL", c.Name, c.Key).
			WithHint("write `%s` %s METADATA VIRTUAL", c.Name, c.Type)
	}
	return nil
}

// Redacted returns a table's options with secrets shown as ****: the
// options its connector declares Secret, and any option whose key names a
// password, a JAAS configuration, user info or a token.
func (r *Registry) Redacted(opts map[string]string) map[string]string {
	var spec *Spec
	if f, ok := r.Lookup(opts["connector"]); ok {
		spec = f.Spec()
	}
	out := make(map[string]string, len(opts))
	for k, v := range opts {
		secret := false
		if spec != nil {
			if o, ok := spec.Option(k); ok {
				secret = o.Secret
			}
		}
		lk := strings.ToLower(k)
		for _, s := range []string{"password", "jaas", "user-info", "token", "secret"} {
			secret = secret || strings.Contains(lk, s)
		}
		if secret {
			v = "****"
		}
		out[k] = v
	}
	return out
}
