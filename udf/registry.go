package udf

import (
	"fmt"
	"regexp"
	"sort"
	"sync"
)

// Registry maps function ids (such as "examples.Greet") to user-defined
// functions. It is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	funcs map[string]Function
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{funcs: map[string]Function{}} }

var idPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)*$`)

// Register adds f under id after validating it. Registering an id twice
// is an error.
func (r *Registry) Register(id string, f Function) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("registering function %q: ids are dotted identifiers such as 'examples.Greet'", id)
	}
	if f == nil {
		return fmt.Errorf("registering function %q: the function is nil", id)
	}
	if err := f.Validate(); err != nil {
		return fmt.Errorf("registering function %q: %w", id, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.funcs[id]; ok {
		return fmt.Errorf("registering function %q: already registered", id)
	}
	r.funcs[id] = f
	return nil
}

// MustRegister is Register that panics on error, for package-level setup.
func (r *Registry) MustRegister(id string, f Function) {
	if err := r.Register(id, f); err != nil {
		panic(err)
	}
}

// Lookup returns the function registered under id.
func (r *Registry) Lookup(id string) (Function, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.funcs[id]
	return f, ok
}

// IDs returns the registered ids, sorted.
func (r *Registry) IDs() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	ids := make([]string, 0, len(r.funcs))
	for id := range r.funcs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
