package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// KV is the persistence the catalog needs; the store package provides it.
type KV interface {
	Get(key []byte) ([]byte, bool, error)
	Set(key, val []byte) error
	Delete(key []byte) error
	Scan(prefix []byte, fn func(key, val []byte) error) error
}

// Errors returned by lookups.
var (
	ErrNotFound = errors.New("catalog: not found")
	ErrExists   = errors.New("catalog: already exists")
)

// Catalog is the set of catalogs, databases, tables and functions. It is
// safe for concurrent use.
type Catalog struct {
	mu        sync.RWMutex
	kv        KV
	prefix    string
	catalogs  map[string]*CatalogInfo
	databases map[string]*Database // cat.db
	tables    map[string]*Table    // cat.db.name
	functions map[string]*Function // functionKey(cat, db, name)
}

// Open loads the catalog stored under prefix in kv, creating
// default_catalog.default_database on first use. kv may be nil for a
// memory-only catalog.
func Open(kv KV, prefix string) (*Catalog, error) {
	c := &Catalog{
		kv: kv, prefix: prefix,
		catalogs:  map[string]*CatalogInfo{},
		databases: map[string]*Database{},
		tables:    map[string]*Table{},
		functions: map[string]*Function{},
	}
	if kv != nil {
		if err := c.load(); err != nil {
			return nil, err
		}
	}
	if _, ok := c.catalogs[DefaultCatalog]; !ok {
		if err := c.CreateCatalog(&CatalogInfo{Name: DefaultCatalog}); err != nil {
			return nil, err
		}
		if err := c.CreateDatabase(&Database{Catalog: DefaultCatalog, Name: DefaultDatabase}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Catalog) key(kind, name string) []byte { return []byte(c.prefix + kind + "/" + name) }

func (c *Catalog) load() error {
	load := func(kind string, fn func([]byte) error) error {
		return c.kv.Scan([]byte(c.prefix+kind+"/"), func(_, v []byte) error { return fn(v) })
	}
	if err := load("cat", func(b []byte) error {
		var x CatalogInfo
		if err := json.Unmarshal(b, &x); err != nil {
			return err
		}
		c.catalogs[x.Name] = &x
		return nil
	}); err != nil {
		return fmt.Errorf("loading catalogs: %w", err)
	}
	if err := load("db", func(b []byte) error {
		var x Database
		if err := json.Unmarshal(b, &x); err != nil {
			return err
		}
		c.databases[x.Catalog+"."+x.Name] = &x
		return nil
	}); err != nil {
		return fmt.Errorf("loading databases: %w", err)
	}
	if err := load("tbl", func(b []byte) error {
		var x Table
		if err := json.Unmarshal(b, &x); err != nil {
			return err
		}
		c.tables[x.FullName()] = &x
		return nil
	}); err != nil {
		return fmt.Errorf("loading tables: %w", err)
	}
	if err := load("fn", func(b []byte) error {
		var x Function
		if err := json.Unmarshal(b, &x); err != nil {
			return err
		}
		c.functions[functionKey(x.Catalog, x.Database, x.Name)] = &x
		return nil
	}); err != nil {
		return fmt.Errorf("loading functions: %w", err)
	}
	return nil
}

func (c *Catalog) put(kind, name string, v any, persist bool) error {
	if c.kv == nil || !persist {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s %s: %w", kind, name, err)
	}
	if err := c.kv.Set(c.key(kind, name), b); err != nil {
		return fmt.Errorf("storing %s %s: %w", kind, name, err)
	}
	return nil
}

func (c *Catalog) del(kind, name string) error {
	if c.kv == nil {
		return nil
	}
	if err := c.kv.Delete(c.key(kind, name)); err != nil {
		return fmt.Errorf("deleting %s %s: %w", kind, name, err)
	}
	return nil
}

// CreateCatalog adds a catalog.
func (c *Catalog) CreateCatalog(ci *CatalogInfo) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.catalogs[ci.Name]; ok {
		return fmt.Errorf("catalog %s: %w", ci.Name, ErrExists)
	}
	if err := c.put("cat", ci.Name, ci, true); err != nil {
		return err
	}
	c.catalogs[ci.Name] = ci
	return nil
}

// HasCatalog reports whether the catalog exists.
func (c *Catalog) HasCatalog(name string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.catalogs[name]
	return ok
}

// CreateDatabase adds a database to an existing catalog.
func (c *Catalog) CreateDatabase(d *Database) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.catalogs[d.Catalog]; !ok {
		return fmt.Errorf("catalog %s: %w", d.Catalog, ErrNotFound)
	}
	full := d.Catalog + "." + d.Name
	if _, ok := c.databases[full]; ok {
		return fmt.Errorf("database %s: %w", full, ErrExists)
	}
	if err := c.put("db", full, d, true); err != nil {
		return err
	}
	c.databases[full] = d
	return nil
}

// HasDatabase reports whether cat.db exists.
func (c *Catalog) HasDatabase(cat, db string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.databases[cat+"."+db]
	return ok
}

// CreateTable adds a table to an existing database.
func (c *Catalog) CreateTable(t *Table) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.databases[t.Catalog+"."+t.Database]; !ok {
		return fmt.Errorf("database %s.%s: %w", t.Catalog, t.Database, ErrNotFound)
	}
	if _, ok := c.tables[t.FullName()]; ok {
		return fmt.Errorf("table %s: %w", t.FullName(), ErrExists)
	}
	if err := c.put("tbl", t.FullName(), t, !t.Temporary); err != nil {
		return err
	}
	c.tables[t.FullName()] = t
	return nil
}

// Table returns cat.db.name.
func (c *Catalog) Table(cat, db, name string) (*Table, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, ok := c.tables[cat+"."+db+"."+name]
	return t, ok
}

// DropTable removes a table.
func (c *Catalog) DropTable(cat, db, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	full := cat + "." + db + "." + name
	t, ok := c.tables[full]
	if !ok {
		return fmt.Errorf("table %s: %w", full, ErrNotFound)
	}
	if !t.Temporary {
		if err := c.del("tbl", full); err != nil {
			return err
		}
	}
	delete(c.tables, full)
	return nil
}

// functionKey is the key of a function in Catalog.functions. Function
// names are case-insensitive, as in Flink (FunctionIdentifier normalizes
// them): myFn and MYFN name the same function. The function keeps the
// spelling it was created with (Function.Name), which is also its key in
// the KV store.
func functionKey(cat, db, name string) string {
	return cat + "." + db + "." + strings.ToLower(name)
}

// CreateFunction binds a function name. Temporary functions are not
// persisted. A function of the same name in another letter case exists
// already (ErrExists).
func (c *Catalog) CreateFunction(f *Function) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	full := f.Catalog + "." + f.Database + "." + f.Name
	key := functionKey(f.Catalog, f.Database, f.Name)
	if _, ok := c.functions[key]; ok {
		return fmt.Errorf("function %s: %w", full, ErrExists)
	}
	if err := c.put("fn", full, f, !f.Temporary); err != nil {
		return err
	}
	c.functions[key] = f
	return nil
}

// Function returns the function bound to cat.db.name; the name is
// case-insensitive.
func (c *Catalog) Function(cat, db, name string) (*Function, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	f, ok := c.functions[functionKey(cat, db, name)]
	return f, ok
}

// DropFunction removes a function binding; the name is case-insensitive.
func (c *Catalog) DropFunction(cat, db, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := functionKey(cat, db, name)
	f, ok := c.functions[key]
	if !ok {
		return fmt.Errorf("function %s.%s.%s: %w", cat, db, name, ErrNotFound)
	}
	if !f.Temporary {
		if err := c.del("fn", f.Catalog+"."+f.Database+"."+f.Name); err != nil {
			return err
		}
	}
	delete(c.functions, key)
	return nil
}

// Catalogs lists catalog names, sorted.
func (c *Catalog) Catalogs() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for n := range c.catalogs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Databases lists the databases of a catalog, sorted.
func (c *Catalog) Databases(cat string) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for _, d := range c.databases {
		if d.Catalog == cat {
			out = append(out, d.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Tables lists the tables of cat.db, sorted.
func (c *Catalog) Tables(cat, db string) []string {
	return c.names(cat, db, func(yield func(string)) {
		for k := range c.tables {
			yield(k)
		}
	})
}

// Functions lists the names of the functions of cat.db as they were
// created, sorted.
func (c *Catalog) Functions(cat, db string) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for _, f := range c.functions {
		if f.Catalog == cat && f.Database == db {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out
}

func (c *Catalog) names(cat, db string, each func(func(string))) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	prefix := cat + "." + db + "."
	var out []string
	each(func(k string) {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			out = append(out, rest)
		}
	})
	sort.Strings(out)
	return out
}
