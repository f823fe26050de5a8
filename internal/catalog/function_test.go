package catalog

import (
	"errors"
	"sort"
	"strings"
	"testing"
)

// mapKV is a KV in memory.
type mapKV map[string][]byte

func (m mapKV) Get(k []byte) ([]byte, bool, error) { v, ok := m[string(k)]; return v, ok, nil }
func (m mapKV) Set(k, v []byte) error              { m[string(k)] = v; return nil }
func (m mapKV) Delete(k []byte) error              { delete(m, string(k)); return nil }
func (m mapKV) Scan(prefix []byte, fn func(k, v []byte) error) error {
	var keys []string
	for k := range m {
		if strings.HasPrefix(k, string(prefix)) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := fn([]byte(k), m[k]); err != nil {
			return err
		}
	}
	return nil
}

// TestFunctionNamesCaseInsensitive checks that function names are found,
// refused as duplicates and dropped in any letter case, keep their
// spelling, and stay so after the catalog is loaded again.
func TestFunctionNamesCaseInsensitive(t *testing.T) {
	kv := mapKV{}
	c, err := Open(kv, "c/")
	if err != nil {
		t.Fatal(err)
	}
	cat, db := DefaultCatalog, DefaultDatabase
	if err := c.CreateFunction(&Function{Catalog: cat, Database: db, Name: "myFn", ID: "a.B"}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateFunction(&Function{Catalog: cat, Database: db, Name: "MYFN", ID: "a.C"}); !errors.Is(err, ErrExists) {
		t.Fatalf("CreateFunction(MYFN) = %v, want ErrExists", err)
	}
	if err := c.CreateFunction(&Function{Catalog: cat, Database: db, Name: "Tmp", ID: "a.T", Temporary: true}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"myFn", "MYFN", "myfn"} {
		f, ok := c.Function(cat, db, n)
		if !ok || f.Name != "myFn" || f.ID != "a.B" {
			t.Fatalf("Function(%s) = %+v, %v", n, f, ok)
		}
	}
	if got := strings.Join(c.Functions(cat, db), ","); got != "Tmp,myFn" {
		t.Fatalf("Functions = %s", got)
	}

	c2, err := Open(kv, "c/")
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := c2.Function(cat, db, "MyFN"); !ok || f.Name != "myFn" {
		t.Fatalf("after reload: Function(MyFN) = %+v, %v", f, ok)
	}
	if _, ok := c2.Function(cat, db, "tmp"); ok {
		t.Fatal("a temporary function was persisted")
	}
	if err := c2.DropFunction(cat, db, "MYFN"); err != nil {
		t.Fatal(err)
	}
	c3, err := Open(kv, "c/")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c3.Function(cat, db, "myFn"); ok {
		t.Fatal("DropFunction(MYFN) left myFn in the store")
	}
	if err := c3.DropFunction(cat, db, "myFn"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("DropFunction of a dropped function = %v", err)
	}
}
