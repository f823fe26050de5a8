package engine

import (
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// ALTER TABLE ... MODIFY, DROP and RENAME col TO col2 (docs/decisions/0036),
// with the checks and messages of Flink's AlterSchemaConverter. Each
// works on ct, the table's definition as a CREATE TABLE (ddlOf); the
// result is validated again as a new CREATE TABLE.

// modifyElements applies ALTER TABLE ... MODIFY to ct: each column is
// replaced by its new definition (keeping its comment unless a new one is
// given) and moved to its position; the primary key and the watermark,
// which must exist, are replaced.
func modifyElements(ct *ast.CreateTable, s *ast.AlterTable) error {
	mod := s.Modify
	seen := map[string]bool{}
	for i, c := range mod.Columns {
		name := c.Name.Name
		if seen[name] {
			return sqlerr.Newf(sqlerr.DuplicateObject, "Encounter duplicate column `%s`.", name).At(c.Pos())
		}
		seen[name] = true
		j := columnAt(ct, name)
		if j < 0 {
			return sqlerr.Newf(sqlerr.UnknownColumn, "Try to modify a column `%s` which does not exist in the table.", name).At(c.Pos())
		}
		if c.Comment == nil {
			c.Comment = ct.Columns[j].Comment
		}
		c.PrimaryKey = false // the key is mod.PrimaryKey
		ct.Columns[j] = c
		if err := moveColumn(ct, j, s.ModifyPositions[i], c); err != nil {
			return err
		}
	}
	if pk := mod.PrimaryKey; pk != nil {
		if ct.PrimaryKey == nil {
			return sqlerr.Newf(sqlerr.InvalidArgument, "The base table does not define any primary key constraint. You might want to add a new one.").At(pk.Pos())
		}
		pk.Inline = false
		ct.PrimaryKey = pk
	}
	if wm := mod.Watermark; wm != nil {
		if ct.Watermark == nil {
			return sqlerr.Newf(sqlerr.InvalidArgument, "The base table does not define any watermark. You might want to add a new one.").At(wm.Pos())
		}
		ct.Watermark = wm
	}
	return nil
}

// moveColumn moves column j of ct to pos ("" leaves it, "FIRST" or AFTER
// the named column).
func moveColumn(ct *ast.CreateTable, j int, pos string, c *ast.ColumnDef) error {
	switch pos {
	case "":
		return nil
	case "FIRST":
		ct.Columns = slices.Insert(slices.Delete(ct.Columns, j, j+1), 0, c)
		return nil
	}
	if columnAt(ct, pos) < 0 {
		return sqlerr.Newf(sqlerr.UnknownColumn, "Referenced column `%s` by 'AFTER' does not exist in the table.", pos).At(c.Pos())
	}
	if pos == c.Name.Name {
		return sqlerr.Newf(sqlerr.InvalidArgument, "Column `%s` cannot be placed after itself.", pos).At(c.Pos())
	}
	ct.Columns = slices.Delete(ct.Columns, j, j+1)
	k := columnAt(ct, pos)
	ct.Columns = slices.Insert(ct.Columns, k+1, c)
	return nil
}

// dropColumns applies ALTER TABLE ... DROP (cols) to ct. A column may be
// dropped only when nothing that stays refers to it: computed columns,
// the watermark, the primary key, the partition and distribution keys.
// Columns dropped together may refer to one another (DROP (a, b) with
// b AS a + 1).
func dropColumns(ct *ast.CreateTable, s *ast.AlterTable) error {
	drop := map[string]*ast.Ident{}
	for _, id := range s.Drop {
		if drop[id.Name] != nil {
			return sqlerr.Newf(sqlerr.DuplicateObject, "Duplicate column `%s`.", id.Name).At(id.Pos())
		}
		drop[id.Name] = id
	}
	for _, id := range s.Drop {
		if err := checkReferences(ct, id, drop); err != nil {
			return err
		}
		if ct.PrimaryKey != nil && slices.ContainsFunc(ct.PrimaryKey.Columns, func(k *ast.Ident) bool { return k.Name == id.Name }) {
			return sqlerr.Newf(sqlerr.InvalidArgument, "The column %s is used as the primary key.", escapeIdent(id.Name)).At(id.Pos()).
				WithHint("drop the key first: ALTER TABLE %s DROP PRIMARY KEY", s.Name)
		}
		if ct.Distribution != nil && slices.ContainsFunc(ct.Distribution.Columns, func(k *ast.Ident) bool { return k.Name == id.Name }) {
			return sqlerr.Newf(sqlerr.InvalidArgument, "The column `%s` is used as the distribution key.", id.Name).At(id.Pos())
		}
	}
	ct.Columns = slices.DeleteFunc(ct.Columns, func(c *ast.ColumnDef) bool { return drop[c.Name.Name] != nil })
	return nil
}

// checkReferences checks that column id exists in ct and that no computed
// column outside ignore, no partition key and no watermark refers to it
// (Flink's ReferencesManager.checkReferences).
func checkReferences(ct *ast.CreateTable, id *ast.Ident, ignore map[string]*ast.Ident) error {
	name := id.Name
	if columnAt(ct, name) < 0 {
		return sqlerr.Newf(sqlerr.UnknownColumn, "The column `%s` does not exist in the base table.", name).At(id.Pos())
	}
	var users []string
	for _, c := range ct.Columns {
		if c.Kind == ast.ComputedColumn && ignore[c.Name.Name] == nil && columnRefs(c.Expr)[name] {
			users = append(users, escapeIdent(c.Name.Name))
		}
	}
	if len(users) > 0 {
		sort.Strings(users)
		return sqlerr.Newf(sqlerr.InvalidArgument, "The column %s is referenced by computed column %s.", escapeIdent(name), strings.Join(users, ", ")).At(id.Pos())
	}
	if slices.ContainsFunc(ct.PartitionedBy, func(k *ast.Ident) bool { return k.Name == name }) {
		return sqlerr.Newf(sqlerr.InvalidArgument, "The column `%s` is used as the partition keys.", name).At(id.Pos())
	}
	if wm := ct.Watermark; wm != nil && (wm.Column.Name == name || columnRefs(wm.Expr)[name]) {
		return sqlerr.Newf(sqlerr.InvalidArgument, "The column `%s` is referenced by watermark expression.", name).At(id.Pos()).
			WithHint("drop the watermark first: ALTER TABLE ... DROP WATERMARK")
	}
	return nil
}

// renameColumn applies ALTER TABLE ... RENAME col TO col2 to ct. The
// primary and distribution keys follow the new name; a column computed
// columns, partition keys or the watermark refer to cannot be renamed
// (as in Flink).
func renameColumn(ct *ast.CreateTable, s *ast.AlterTable) error {
	from, to := s.RenameColumn, s.RenameColumnTo
	if err := checkReferences(ct, from, nil); err != nil {
		return err
	}
	if columnAt(ct, to.Name) >= 0 {
		return sqlerr.Newf(sqlerr.DuplicateObject, "The column `%s` already existed in table schema.", to.Name).At(to.Pos())
	}
	c := *ct.Columns[columnAt(ct, from.Name)]
	c.Name = to
	ct.Columns[columnAt(ct, from.Name)] = &c
	rename := func(ids []*ast.Ident) {
		for i, k := range ids {
			if k.Name == from.Name {
				ids[i] = to
			}
		}
	}
	if ct.PrimaryKey != nil {
		rename(ct.PrimaryKey.Columns)
	}
	if ct.Distribution != nil {
		rename(ct.Distribution.Columns)
	}
	return nil
}

// dropPrimaryKey and dropWatermark apply ALTER TABLE ... DROP PRIMARY KEY
// and DROP WATERMARK to ct.
func dropPrimaryKey(ct *ast.CreateTable, s *ast.AlterTable) error {
	if ct.PrimaryKey == nil {
		return sqlerr.Newf(sqlerr.InvalidArgument, "The base table does not define any primary key.").At(s.Action.Pos())
	}
	ct.PrimaryKey = nil
	return nil
}

func dropWatermark(ct *ast.CreateTable, s *ast.AlterTable) error {
	if ct.Watermark == nil {
		return sqlerr.Newf(sqlerr.InvalidArgument, "The base table does not define any watermark strategy.").At(s.Action.Pos())
	}
	ct.Watermark = nil
	return nil
}

func columnAt(ct *ast.CreateTable, name string) int {
	return slices.IndexFunc(ct.Columns, func(c *ast.ColumnDef) bool { return c.Name.Name == name })
}

// columnRefs returns the names of the columns e refers to.
func columnRefs(e ast.Expr) map[string]bool {
	out := map[string]bool{}
	if e == nil {
		return out
	}
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.ColumnRef); ok && len(c.Parts) > 0 {
			out[c.Parts[0].Name] = true
		}
		return true
	})
	return out
}

// checkLogLayout checks that the new definition nt of the Eddy log table t
// still reads the rows t's log holds: its physical columns are t's (under
// their new names, renamed maps old names to new), in the same order and
// of the same types up to nullability (as in Flink, ALTER TABLE does not
// check the stored rows against a new NOT NULL), followed by any new ones;
// with several buckets, the bucket key stays.
func checkLogLayout(t, nt *catalog.Table, s *ast.AlterTable, renamed map[string]string) error {
	oldPhys, newPhys := t.PhysicalSchema(), nt.PhysicalSchema()
	pos := s.Action.Pos()
	hint := "copy the table instead, e.g. CREATE TABLE " + t.Name + "_2 AS SELECT ... FROM " + t.Name
	newName := func(n string) string {
		if r, ok := renamed[n]; ok {
			return r
		}
		return n
	}
	for i, f := range oldPhys.Fields {
		name := newName(f.Name)
		j := nt.ColumnIndex(name)
		if j < 0 {
			return sqlerr.Newf(sqlerr.Unsupported, "The physical column `%s` of the Eddy log table '%s' cannot be dropped: the rows stored in the table hold it", f.Name, t.Name).At(pos).
				WithHint("%s; computed and metadata columns may be dropped", hint)
		}
		if k := nt.Columns[j].Kind; k != catalog.Physical {
			return sqlerr.Newf(sqlerr.Unsupported, "The physical column `%s` of the Eddy log table '%s' cannot become a %s column: the rows stored in the table hold it", f.Name, t.Name, k).At(pos).
				WithHint("%s", hint)
		}
		// Every old physical column is still physical, so newPhys has at
		// least as many columns.
		if newPhys.Fields[i].Name != name {
			if moved := newPhys.Fields[i].Name; oldPhys.Index(oldName(renamed, moved)) >= 0 {
				return sqlerr.Newf(sqlerr.Unsupported, "The physical column `%s` of the Eddy log table '%s' cannot move: the rows stored in the table hold the physical columns in their order", moved, t.Name).At(pos).
					WithHint("drop FIRST/AFTER for physical columns (computed and metadata columns may go anywhere)")
			}
			return sqlerr.Newf(sqlerr.Unsupported, "A new physical column of the Eddy log table '%s' must come after its existing physical columns", t.Name).At(pos).
				WithHint("drop FIRST/AFTER for physical columns (computed and metadata columns may go anywhere)")
		}
		nf := newPhys.Fields[i].Type
		if !nf.Same(f.Type) {
			return sqlerr.Newf(sqlerr.Unsupported, "The type of the physical column `%s` of the Eddy log table '%s' cannot change from %s to %s: the rows stored in the table hold %s values", f.Name, t.Name, f.Type, nf, f.Type).At(pos).
				WithHint("%s; only NOT NULL may be added or removed", hint)
		}
	}
	if t.Buckets() > 1 {
		var oldKey []string
		for _, k := range t.BucketKey() {
			oldKey = append(oldKey, newName(k))
		}
		if !slices.Equal(oldKey, nt.BucketKey()) {
			return sqlerr.Newf(sqlerr.Unsupported, "The bucket key (%s) of the Eddy log table '%s' cannot change: its %d buckets hold the rows by it", strings.Join(t.BucketKey(), ", "), t.Name, t.Buckets()).At(pos).
				WithHint("%s, or declare the buckets' key with DISTRIBUTED BY (...) so that the primary key may change", hint)
		}
	}
	return nil
}

// relocate points every node under n at pos: the definition of a table
// rendered back as a CREATE TABLE (ddlOf) has positions in that text,
// which mean nothing to the user; an error about it then points at the
// statement's table name.
func relocate(n ast.Node, pos sqlerr.Pos) {
	loc, at := reflect.TypeOf(ast.Loc{}), reflect.TypeOf(pos)
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		v := reflect.ValueOf(n)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			return true
		}
		for s, i := v.Elem(), 0; i < v.Elem().NumField(); i++ {
			switch f := s.Field(i); {
			case !f.CanSet():
			case f.Type() == loc:
				f.Set(reflect.ValueOf(ast.Loc{Start: pos}))
			case f.Type() == at:
				f.Set(reflect.ValueOf(pos))
			}
		}
		return true
	})
}

// oldName returns the name column name had before renamed.
func oldName(renamed map[string]string, name string) string {
	for from, to := range renamed {
		if to == name {
			return from
		}
	}
	return name
}

// escapeIdent quotes a name with backticks, as Flink's messages do.
func escapeIdent(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }
