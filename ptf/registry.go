package ptf

import (
	"fmt"
	"regexp"
	"sort"
	"sync"
)

// Registry maps function ids (such as "examples.OrderStatusTracker") to
// definitions. It is safe for concurrent use.
type Registry struct {
	mu   sync.RWMutex
	defs map[string]*Definition
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{defs: map[string]*Definition{}} }

var idPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)*$`)

// Register adds a definition under id after validating it. Registering an
// id twice is an error.
func (r *Registry) Register(id string, d *Definition) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("registering function %q: ids are dotted identifiers such as 'examples.Median'", id)
	}
	if err := d.Validate(); err != nil {
		return fmt.Errorf("registering function %q: %w", id, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.defs[id]; ok {
		return fmt.Errorf("registering function %q: already registered", id)
	}
	r.defs[id] = d
	return nil
}

// MustRegister is Register that panics on error, for package-level setup.
func (r *Registry) MustRegister(id string, d *Definition) {
	if err := r.Register(id, d); err != nil {
		panic(err)
	}
}

// Lookup returns the definition registered under id.
func (r *Registry) Lookup(id string) (*Definition, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	d, ok := r.defs[id]
	return d, ok
}

// IDs returns the registered ids, sorted.
func (r *Registry) IDs() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ids := make([]string, 0, len(r.defs))
	for id := range r.defs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
