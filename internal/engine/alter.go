package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// ALTER TABLE and CREATE TABLE ... LIKE (docs/decisions/0027). Both work
// on the table's DDL: the definition in the catalog is turned back into a
// CREATE TABLE, changed, and validated again as a new CREATE TABLE would
// be, so that an altered or derived table obeys every rule a created one
// does.

// ddlOf returns the CREATE TABLE statement of a table's definition, named
// name, with its options unredacted.
func (e *Engine) ddlOf(t *catalog.Table, name *ast.ObjectName) (*ast.CreateTable, error) {
	stmt, err := parser.ParseStatement(e.CreateTableSQL(t))
	if err != nil {
		return nil, fmt.Errorf("internal: the definition of %s does not parse: %w", t.FullName(), err)
	}
	ct, ok := stmt.(*ast.CreateTable)
	if !ok {
		return nil, fmt.Errorf("internal: the definition of %s is not a CREATE TABLE", t.FullName())
	}
	relocate(ct, name.Pos())
	ct.Name = name
	ct.Options = nil
	for _, k := range sortedKeys(t.Options) {
		ct.Options = append(ct.Options, &ast.Option{Key: &ast.StringLit{Loc: ast.Loc{Start: name.Pos()}, Value: k}, Value: &ast.StringLit{Loc: ast.Loc{Start: name.Pos()}, Value: t.Options[k]}})
	}
	ct.Temporary = t.Temporary
	return ct, nil
}

// alterTable runs ALTER TABLE ... SET, RESET, ADD, MODIFY, DROP, RENAME
// col TO col2 and RENAME TO. Running statements keep the plan they were
// compiled with, as in Flink (docs/decisions/0036).
func (e *Engine) alterTable(s *ast.AlterTable) (*cli.Result, error) {
	p := e.planner()
	t, err := p.ResolveTable(s.Name)
	if err != nil {
		if s.IfExists {
			return ok()
		}
		return nil, err
	}
	if err := notAView(t, s.Name.Pos(), "ALTER TABLE changes tables; replace a view with DROP VIEW and CREATE VIEW"); err != nil {
		return nil, err
	}
	if s.RenameTo != nil {
		return e.renameTable(p, t, s)
	}
	ct, err := e.ddlOf(t, s.Name)
	if err != nil {
		return nil, err
	}
	switch {
	case s.Set != nil:
		for _, o := range s.Set {
			if o.Key.Value == "connector" && o.Value.Value != t.Options["connector"] {
				return nil, sqlerr.Newf(sqlerr.Unsupported, "ALTER TABLE cannot change 'connector' of '%s': its data stays where it is", t.Name).At(o.Key.Pos()).
					WithHint("create a new table with the other connector, e.g. CREATE TABLE %s_2 WITH ('connector' = '%s', ...) LIKE %s", t.Name, o.Value.Value, t.Name)
			}
			i := slices.IndexFunc(ct.Options, func(x *ast.Option) bool { return x.Key.Value == o.Key.Value })
			if i >= 0 {
				ct.Options[i] = o
			} else {
				ct.Options = append(ct.Options, o)
			}
		}
	case s.Reset != nil:
		for _, k := range s.Reset {
			if k.Value == "" {
				return nil, sqlerr.Newf(sqlerr.InvalidOption, "ALTER TABLE RESET does not support empty key").At(k.Pos())
			}
			if k.Value == "connector" {
				return nil, sqlerr.Newf(sqlerr.Unsupported, "ALTER TABLE RESET does not support changing 'connector'").At(k.Pos())
			}
			ct.Options = slices.DeleteFunc(ct.Options, func(x *ast.Option) bool { return x.Key.Value == k.Value })
		}
	default:
		if err := changeSchema(ct, s); err != nil {
			return nil, err
		}
	}
	nt, err := p.TableFromDDL(ct, nil)
	if err != nil {
		return nil, err
	}
	nt.Log, nt.Owner, nt.Temporary = t.Log, t.Owner, t.Temporary
	if t.Log != "" {
		// A log keeps the rows it holds: new physical columns go after the
		// existing ones (older rows read NULL there).
		var renamed map[string]string
		if s.RenameColumn != nil {
			renamed = map[string]string{s.RenameColumn.Name: s.RenameColumnTo.Name}
		}
		if err := checkLogLayout(t, nt, s, renamed); err != nil {
			return nil, err
		}
	}
	if err := e.cat.ReplaceTable(t, nt); err != nil {
		return nil, err
	}
	return ok()
}

// changeSchema applies ALTER TABLE ... ADD, MODIFY, DROP or RENAME col TO
// col2 to ct.
func changeSchema(ct *ast.CreateTable, s *ast.AlterTable) error {
	switch {
	case s.Add != nil:
		return addElements(ct, s)
	case s.Modify != nil:
		return modifyElements(ct, s)
	case s.Drop != nil:
		return dropColumns(ct, s)
	case s.DropPrimaryKey:
		return dropPrimaryKey(ct, s)
	case s.DropWatermark:
		return dropWatermark(ct, s)
	case s.RenameColumn != nil:
		return renameColumn(ct, s)
	}
	return nil
}

// addElements applies ALTER TABLE ... ADD to ct: columns at their
// positions, a primary key, a watermark, with Flink's errors.
func addElements(ct *ast.CreateTable, s *ast.AlterTable) error {
	add := s.Add
	seen := map[string]bool{}
	for i, c := range add.Columns {
		if seen[c.Name.Name] {
			return sqlerr.Newf(sqlerr.DuplicateObject, "Encounter duplicate column `%s`.", c.Name.Name).At(c.Pos())
		}
		seen[c.Name.Name] = true
		if slices.ContainsFunc(ct.Columns, func(x *ast.ColumnDef) bool { return x.Name.Name == c.Name.Name }) {
			return sqlerr.Newf(sqlerr.DuplicateObject, "Try to add a column `%s` which already exists in the table.", c.Name.Name).At(c.Pos())
		}
		switch pos := s.AddPositions[i]; pos {
		case "":
			ct.Columns = append(ct.Columns, c)
		case "FIRST":
			ct.Columns = slices.Insert(ct.Columns, 0, c)
		default:
			j := slices.IndexFunc(ct.Columns, func(x *ast.ColumnDef) bool { return x.Name.Name == pos })
			if j < 0 {
				return sqlerr.Newf(sqlerr.UnknownColumn, "Referenced column `%s` by 'AFTER' does not exist in the table.", pos).At(c.Pos())
			}
			ct.Columns = slices.Insert(ct.Columns, j+1, c)
		}
		if c.PrimaryKey {
			c.PrimaryKey = false // the key is add.PrimaryKey
		}
	}
	if pk := add.PrimaryKey; pk != nil {
		if ct.PrimaryKey != nil {
			return sqlerr.Newf(sqlerr.InvalidArgument, "The base table has already defined the primary key constraint [%s]. You might want to drop it before adding a new one.", quoteNames(ct.PrimaryKey.Columns)).At(pk.Pos())
		}
		pk.Inline = false
		ct.PrimaryKey = pk
	}
	if wm := add.Watermark; wm != nil {
		if ct.Watermark != nil {
			return sqlerr.Newf(sqlerr.InvalidArgument, "The base table has already defined the watermark strategy `%s` AS %s. You might want to drop it before adding a new one.", ct.Watermark.Column.Name, ast.Format(ct.Watermark.Expr)).At(wm.Pos())
		}
		ct.Watermark = wm
	}
	return nil
}

func quoteNames(ids []*ast.Ident) string {
	var out []string
	for _, id := range ids {
		out = append(out, "`"+id.Name+"`")
	}
	return strings.Join(out, ", ")
}

// renameTable is ALTER TABLE t RENAME TO t2, within t's catalog.
func (e *Engine) renameTable(p *plan.Planner, t *catalog.Table, s *ast.AlterTable) (*cli.Result, error) {
	parts := s.RenameTo.Names()
	cat, db := t.Catalog, t.Database
	switch len(parts) {
	case 2:
		db = parts[0]
	case 3:
		cat, db = parts[0], parts[1]
	}
	name := parts[len(parts)-1]
	if cat != t.Catalog {
		return nil, sqlerr.Newf(sqlerr.InvalidArgument, "The catalog name of the new table name '%s' must be the same as the old table's '%s'", cat, t.Catalog).At(s.RenameTo.Pos())
	}
	if err := e.checkDatabase(cat, db, s.RenameTo.Pos()); err != nil {
		return nil, err
	}
	if _, exists := e.cat.Table(cat, db, name); exists {
		return nil, sqlerr.Newf(sqlerr.DuplicateObject, "Could not execute ALTER TABLE %s RENAME TO %s: Table (or view) %s already exists in Catalog %s.", t.FullName(), cat+"."+db+"."+name, db+"."+name, cat).At(s.RenameTo.Pos())
	}
	if ws := e.tableWriters(t.FullName()); len(ws) > 0 {
		return nil, sqlerr.Newf(sqlerr.InvalidArgument, "Table '%s' cannot be renamed: it is written by %s", t.Name, strings.Join(ws, ", ")).At(s.Name.Pos()).
			WithHint("stop the statements that write %s first", t.Name)
	}
	nt := *t
	nt.Database, nt.Name = db, name
	if err := e.cat.ReplaceTable(t, &nt); err != nil {
		if errors.Is(err, catalog.ErrExists) {
			return nil, sqlerr.Newf(sqlerr.DuplicateObject, "Table '%s' already exists", name).At(s.RenameTo.Pos())
		}
		return nil, err
	}
	return ok()
}

// likeFeatures are the features of LIKE options, with Flink's default
// strategy for each (INCLUDING ALL OVERWRITING OPTIONS).
var likeFeatures = []string{"CONSTRAINTS", "DISTRIBUTION", "PARTITIONS", "GENERATED", "METADATA", "OPTIONS", "WATERMARKS"}

// expandLike turns CREATE TABLE t (...) WITH (...) LIKE src (options) into
// the CREATE TABLE it stands for, merged as Flink merges: the source's
// physical columns always come first; the other features follow their
// INCLUDING, EXCLUDING or OVERWRITING strategy.
func (e *Engine) expandLike(p *plan.Planner, s *ast.CreateTable) (*ast.CreateTable, error) {
	src, err := p.ResolveTable(s.Like.Source)
	if err != nil {
		return nil, err
	}
	if src.View != "" {
		return nil, sqlerr.Newf(sqlerr.InvalidArgument, "Source table '%s' of the LIKE clause can not be a VIEW", s.Like.Source).At(s.Like.Source.Pos())
	}
	mode := map[string]string{}
	for _, f := range likeFeatures {
		mode[f] = "INCLUDING"
	}
	mode["OPTIONS"] = "OVERWRITING"
	seen := map[string]bool{}
	for _, o := range s.Like.Options {
		if seen[o.Feature] {
			return nil, sqlerr.Newf(sqlerr.InvalidArgument, "Each like option feature can be declared only once.").At(o.Pos())
		}
		seen[o.Feature] = true
		if o.Feature == "ALL" {
			for _, f := range likeFeatures {
				mode[f] = o.Mode
			}
			continue
		}
		mode[o.Feature] = o.Mode
	}
	base, err := e.ddlOf(src, s.Name)
	if err != nil {
		return nil, err
	}
	out := *s
	out.Like = nil
	out.Columns = nil
	for _, c := range base.Columns {
		switch {
		case c.Kind == ast.ComputedColumn && mode["GENERATED"] == "EXCLUDING":
		case c.Kind == ast.MetadataColumn && mode["METADATA"] == "EXCLUDING":
		default:
			c.PrimaryKey = false
			out.Columns = append(out.Columns, c)
		}
	}
	for _, c := range s.Columns {
		i := slices.IndexFunc(out.Columns, func(x *ast.ColumnDef) bool { return x.Name.Name == c.Name.Name })
		if i < 0 {
			out.Columns = append(out.Columns, c)
			continue
		}
		feature, what := "GENERATED", "generated"
		switch out.Columns[i].Kind {
		case ast.PhysicalColumn:
			return nil, sqlerr.Newf(sqlerr.DuplicateObject, "A column named '%s' already exists in the base table.", c.Name.Name).At(c.Pos())
		case ast.MetadataColumn:
			feature, what = "METADATA", "metadata"
		}
		if mode[feature] != "OVERWRITING" {
			return nil, sqlerr.Newf(sqlerr.DuplicateObject, "A %s column named '%s' already exists in the base table. You might want to specify EXCLUDING %s or OVERWRITING %s.", what, c.Name.Name, feature, feature).At(c.Pos())
		}
		out.Columns[i] = c
	}
	if mode["CONSTRAINTS"] == "INCLUDING" && base.PrimaryKey != nil {
		if s.PrimaryKey != nil {
			return nil, sqlerr.Newf(sqlerr.InvalidArgument, "The base table already has a primary key. You might want to specify EXCLUDING CONSTRAINTS.").At(s.PrimaryKey.Pos())
		}
		out.PrimaryKey = base.PrimaryKey
	}
	if mode["WATERMARKS"] != "EXCLUDING" && base.Watermark != nil {
		switch {
		case s.Watermark == nil:
			out.Watermark = base.Watermark
		case mode["WATERMARKS"] == "INCLUDING":
			return nil, sqlerr.Newf(sqlerr.InvalidArgument, "There already exists a watermark spec for column '%s' in the base table. You might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.", base.Watermark.Column.Name).At(s.Watermark.Pos())
		}
	}
	if mode["DISTRIBUTION"] == "INCLUDING" && base.Distribution != nil {
		if s.Distribution != nil {
			return nil, sqlerr.Newf(sqlerr.InvalidArgument, "The base table already has a distribution defined. You might want to specify EXCLUDING DISTRIBUTION.").At(s.Distribution.Pos())
		}
		out.Distribution = base.Distribution
	}
	if mode["PARTITIONS"] == "INCLUDING" && len(base.PartitionedBy) > 0 {
		if len(s.PartitionedBy) > 0 {
			return nil, sqlerr.Newf(sqlerr.InvalidArgument, "The base table already has partitions defined. You might want to specify EXCLUDING PARTITIONS.").At(s.PartitionedBy[0].Pos())
		}
		out.PartitionedBy = base.PartitionedBy
	}
	if mode["OPTIONS"] != "EXCLUDING" {
		opts := append([]*ast.Option(nil), base.Options...)
		for _, o := range s.Options {
			i := slices.IndexFunc(opts, func(x *ast.Option) bool { return x.Key.Value == o.Key.Value })
			switch {
			case i < 0:
				opts = append(opts, o)
			case mode["OPTIONS"] == "INCLUDING":
				return nil, sqlerr.Newf(sqlerr.InvalidOption, "There already exists an option ['%s' -> '%s']  in the base table. You might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS.", o.Key.Value, opts[i].Value.Value).At(o.Key.Pos())
			default:
				opts[i] = o
			}
		}
		// Options Eddy records for the table itself (creation times) are
		// the new table's own.
		out.Options = slices.DeleteFunc(opts, func(x *ast.Option) bool {
			return strings.HasSuffix(x.Key.Value, "created-at") && !slices.Contains(s.Options, x)
		})
	}
	return &out, nil
}
