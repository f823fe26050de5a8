package engine

import (
	"fmt"
	"github.com/eddy-sql/eddy/udf"
	"sort"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/internal/artifact"
	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/opt"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/ptf"
)

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func column(name string, vals []string) *cli.Result {
	rows := make([][]string, len(vals))
	for i, v := range vals {
		rows[i] = []string{v}
	}
	return staticResult(stringSchema(name), stringRows(rows))
}

func (e *Engine) show(s *ast.Show) (*cli.Result, error) {
	switch s.What {
	case ast.ShowCatalogs:
		return column("catalog name", e.cat.Catalogs()), nil
	case ast.ShowDatabases:
		return column("database name", e.cat.Databases(e.sess.Catalog)), nil
	case ast.ShowViews, ast.ShowTables:
		return e.showTables(s)
	case ast.ShowFunctions:
		// Built-in functions, then the user functions of the current
		// database (or of FROM/IN), like Flink's SHOW FUNCTIONS.
		cat, db, err := e.showDatabase(s)
		if err != nil {
			return nil, err
		}
		var rows [][]string
		for _, f := range plan.BuiltinFunctions() {
			if functionMatches(s, f.Name) {
				rows = append(rows, []string{f.Name, "built-in " + f.Family, f.Description})
			}
		}
		for _, u := range e.userFunctions(cat, db) {
			if functionMatches(s, u[0]) {
				rows = append(rows, []string{u[0], "user " + u[1], u[2]})
			}
		}
		return staticResult(stringSchema("function name", "kind", "description"), stringRows(rows)), nil
	case ast.ShowUserFunctions:
		cat, db, err := e.showDatabase(s)
		if err != nil {
			return nil, err
		}
		var rows [][]string
		for _, u := range e.userFunctions(cat, db) {
			if functionMatches(s, u[0]) {
				rows = append(rows, u)
			}
		}
		return staticResult(stringSchema("function name", "id", "description"), stringRows(rows)), nil
	case ast.ShowCurrentCatalog:
		return column("current catalog name", []string{e.sess.Catalog}), nil
	case ast.ShowCurrentDatabase:
		return column("current database name", []string{e.sess.Database}), nil
	}
	return nil, sqlerr.Newf(sqlerr.Unsupported, "SHOW %s is not supported", s.What).At(s.Pos())
}

// functionDef returns the definition a catalog function binds: a
// registered one, or one of an artifact's module.
func (e *Engine) functionDef(f *catalog.Function) (*ptf.Definition, bool) {
	if f.Artifact != "" {
		d, err := e.resolveArtifactFunction(f)
		return d, err == nil
	}
	return e.reg.Lookup(f.ID)
}

// showDatabase returns the database of SHOW ... [FROM | IN db]: the
// current one without FROM.
func (e *Engine) showDatabase(s *ast.Show) (cat, db string, err error) {
	cat, db = e.sess.Catalog, e.sess.Database
	if s.From != nil {
		parts := s.From.Names()
		db = parts[len(parts)-1]
		if len(parts) == 2 {
			cat = parts[0]
		}
		err = e.checkDatabase(cat, db, s.From.Pos())
	}
	return cat, db, err
}

// functionMatches applies SHOW ... [NOT] LIKE to a function name. Function
// names are case-insensitive, so the pattern matches them in any case
// (Flink matches its lower-cased names).
func functionMatches(s *ast.Show, name string) bool {
	if s.Like == nil {
		return true
	}
	return likePattern(strings.ToUpper(s.Like.Value)).MatchString(strings.ToUpper(name)) != s.NotLike
}

// userFunctions lists the functions of database cat.db as rows of name,
// id and description.
func (e *Engine) userFunctions(cat, db string) [][]string {
	var rows [][]string
	for _, n := range e.cat.Functions(cat, db) {
		f, _ := e.cat.Function(cat, db, n)
		doc := ""
		if d, ok := e.functionDef(f); ok {
			doc = d.Doc
		} else if u, ok := e.udfs.Lookup(f.ID); ok {
			doc = u.Description()
		}
		rows = append(rows, []string{n, f.ID, doc})
	}
	return rows
}

// describeFunction is DESCRIBE FUNCTION [EXTENDED] name: a user function
// of the current database (or a qualified one), else a built-in.
func (e *Engine) describeFunction(s *ast.DescribeFunction) (*cli.Result, error) {
	var rows [][]string
	add := func(k, v string) { rows = append(rows, []string{k, v}) }
	parts := s.Name.Names()
	cat, db, name := e.sess.Catalog, e.sess.Database, parts[len(parts)-1]
	if len(parts) >= 2 {
		db = parts[len(parts)-2]
	}
	if len(parts) == 3 {
		cat = parts[0]
	}
	// An unqualified name is a built-in function first, as calls resolve it
	// (Flink resolves system functions before catalog ones).
	_, builtin := plan.LookupBuiltin(name)
	if f, ok := e.cat.Function(cat, db, name); ok && e.isUDF(f.ID) && (!builtin || len(parts) > 1) {
		u, _ := e.udfs.Lookup(f.ID)
		add("name", f.Name)
		add("kind", "user ("+u.Kind().String()+" function)")
		add("id", f.ID)
		add("signature", strings.Join(u.Signatures(), "; "))
		add("description", u.Description())
		if s.Extended {
			add("is deterministic", strings.ToUpper(fmt.Sprint(isDeterministic(u))))
			if a, ok := u.(udf.AggregateFunction); ok {
				add("accumulator", a.AccumulatorType())
				add("retracts", strings.ToUpper(fmt.Sprint(a.CanRetract())))
			}
		}
		return staticResult(stringSchema("info name", "info value"), stringRows(rows)), nil
	}
	if f, ok := e.cat.Function(cat, db, name); ok && (!builtin || len(parts) > 1) {
		add("name", f.Name)
		add("kind", "user (process table function)")
		add("id", f.ID)
		if f.Artifact != "" {
			add("artifact", artifact.URI(f.Artifact, f.Version))
		}
		if d, ok := e.functionDef(f); ok {
			add("description", d.Doc)
			if s.Extended {
				var args []string
				for _, a := range d.Args {
					args = append(args, a.Name)
				}
				add("arguments", strings.Join(args, ", "))
				add("output", d.Output)
			}
		}
		return staticResult(stringSchema("info name", "info value"), stringRows(rows)), nil
	}
	info, ok := plan.LookupBuiltin(name)
	if len(parts) > 1 || !ok {
		err := sqlerr.Newf(sqlerr.UnknownFunction, "Function '%s' not found", s.Name).At(s.Name.Pos())
		if sug := plan.SuggestFunction(name, e.cat.Functions(cat, db)); sug != "" && len(parts) == 1 {
			return nil, err.WithHint("did you mean %s? SHOW FUNCTIONS lists the functions", sug)
		}
		return nil, err.WithHint("SHOW FUNCTIONS lists the functions")
	}
	add("name", info.Name)
	add("kind", "built-in "+info.Family)
	add("signature", strings.Join(info.Signatures, "; "))
	add("description", info.Description)
	if s.Extended {
		add("is deterministic", strings.ToUpper(fmt.Sprint(info.Deterministic)))
	}
	return staticResult(stringSchema("info name", "info value"), stringRows(rows)), nil
}

func (e *Engine) describe(s *ast.Describe) (*cli.Result, error) {
	t, err := e.planner().ResolveTable(s.Name)
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, c := range t.Columns {
		null := "TRUE"
		if c.Type.NotNull {
			null = "FALSE"
		}
		key := ""
		for _, k := range t.PrimaryKey {
			if k == c.Name {
				key = fmt.Sprintf("PRI(%s)", strings.Join(t.PrimaryKey, ", "))
			}
		}
		extras := ""
		switch c.Kind {
		case catalog.Computed:
			extras = "AS " + c.Expr
		case catalog.Metadata:
			extras = "METADATA"
			if c.MetadataKey != "" {
				extras += " FROM '" + c.MetadataKey + "'"
			}
			if c.Virtual {
				extras += " VIRTUAL"
			}
		}
		typ := c.Type.Nullable().String()
		wm := ""
		if t.Watermark != nil && t.Watermark.Column == c.Name {
			typ += " *ROWTIME*"
			wm = t.Watermark.Expr
		}
		rows = append(rows, []string{c.Name, typ, null, key, extras, wm})
	}
	if s.Extended {
		rows = append(rows, e.tableDetails(t)...)
	}
	return staticResult(stringSchema("name", "type", "null", "key", "extras", "watermark"), stringRows(rows)), nil
}

// tableDetails are the rows DESCRIBE EXTENDED adds below the columns, as
// Spark and Databricks print them: a header row, then one row per detail
// (name in the first column, value in the second).
func (e *Engine) tableDetails(t *catalog.Table) [][]string {
	detail := func(k, v string) []string { return []string{k, v, "", "", "", ""} }
	rows := [][]string{detail("", ""), detail("# Detailed Table Information", "")}
	rows = append(rows, detail("table", t.FullName()))
	kind := "log table (embedded)"
	if c := t.Connector(); c != "" {
		kind = "connector '" + c + "'"
	}
	rows = append(rows, detail("kind", kind), detail("changelog.mode", e.planner().TableMode(t).String()))
	if t.Distribution != nil {
		rows = append(rows, detail("distribution", fmt.Sprintf("BY (%s) INTO %d BUCKETS", strings.Join(t.Distribution.Columns, ", "), t.Buckets())))
	}
	owner := t.Owner
	if owner == "" {
		owner = "(created by DDL)"
	}
	rows = append(rows, detail("created by", owner))
	writers := e.tableWriters(t.FullName())
	if len(writers) == 0 {
		rows = append(rows, detail("written by", "(no running statement)"))
	}
	for _, w := range writers {
		rows = append(rows, detail("written by", w))
	}
	shown := e.connectors.Redacted(t.Options)
	for _, k := range sortedKeys(shown) {
		rows = append(rows, detail("option "+k, shown[k]))
	}
	return rows
}

func (e *Engine) showCreateTable(s *ast.ShowCreateTable) (*cli.Result, error) {
	t, err := e.planner().ResolveTable(s.Name)
	if err != nil {
		return nil, err
	}
	return &cli.Result{Message: "\n" + e.CreateTableSQL(t)}, nil
}

// CreateTableSQL renders the DDL of a table, secrets redacted.
func (e *Engine) CreateTableSQL(t *catalog.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (\n", ast.QuoteIdent(t.Catalog)+"."+ast.QuoteIdent(t.Database)+"."+ast.QuoteIdent(t.Name))
	var lines []string
	for _, c := range t.Columns {
		line := "  " + ast.QuoteIdent(c.Name) + " "
		switch c.Kind {
		case catalog.Computed:
			line += "AS " + c.Expr
		case catalog.Metadata:
			line += c.Type.String() + " METADATA"
			if c.MetadataKey != "" {
				line += " FROM '" + c.MetadataKey + "'"
			}
			if c.Virtual {
				line += " VIRTUAL"
			}
		default:
			line += c.Type.String()
		}
		if c.Comment != "" {
			line += " COMMENT '" + strings.ReplaceAll(c.Comment, "'", "''") + "'"
		}
		lines = append(lines, line)
	}
	if t.Watermark != nil {
		lines = append(lines, fmt.Sprintf("  WATERMARK FOR %s AS %s", ast.QuoteIdent(t.Watermark.Column), t.Watermark.Expr))
	}
	if len(t.PrimaryKey) > 0 {
		var ks []string
		for _, k := range t.PrimaryKey {
			ks = append(ks, ast.QuoteIdent(k))
		}
		lines = append(lines, fmt.Sprintf("  PRIMARY KEY (%s) NOT ENFORCED", strings.Join(ks, ", ")))
	}
	b.WriteString(strings.Join(lines, ",\n"))
	b.WriteString("\n)")
	if t.Comment != "" {
		fmt.Fprintf(&b, "\nCOMMENT '%s'", strings.ReplaceAll(t.Comment, "'", "''"))
	}
	if d := t.Distribution; d != nil {
		if len(d.Columns) > 0 {
			var cs []string
			for _, c := range d.Columns {
				cs = append(cs, ast.QuoteIdent(c))
			}
			fmt.Fprintf(&b, "\nDISTRIBUTED BY (%s) INTO %d BUCKETS", strings.Join(cs, ", "), d.Buckets)
		} else {
			fmt.Fprintf(&b, "\nDISTRIBUTED INTO %d BUCKETS", d.Buckets)
		}
	}
	if len(t.PartitionKeys) > 0 {
		var cs []string
		for _, c := range t.PartitionKeys {
			cs = append(cs, ast.QuoteIdent(c))
		}
		fmt.Fprintf(&b, "\nPARTITIONED BY (%s)", strings.Join(cs, ", "))
	}
	if len(t.Options) > 0 {
		var opts []string
		// Secrets (passwords, JAAS configs, registry credentials) are not
		// shown.
		shown := e.connectors.Redacted(t.Options)
		for _, k := range sortedKeys(t.Options) {
			opts = append(opts, fmt.Sprintf("  '%s' = '%s'", k, strings.ReplaceAll(shown[k], "'", "''")))
		}
		fmt.Fprintf(&b, "\nWITH (\n%s\n)", strings.Join(opts, ",\n"))
	}
	return b.String()
}

func (e *Engine) explain(s *ast.Explain) (*cli.Result, error) {
	p := e.planner()
	var q *plan.QueryPlan
	var err error
	switch st := s.Statement.(type) {
	case ast.Query:
		if q, err = planSelect(p, st); err != nil {
			return nil, err
		}
	case *ast.Insert:
		t, err := p.ResolveTable(st.Table)
		if err != nil {
			return nil, err
		}
		if _, isValues := st.Query.(*ast.Values); isValues {
			return &cli.Result{Message: "\nValues -> Sink(" + t.FullName() + ")"}, nil
		}
		if q, err = planInsertWith(p, t, st.Columns, st.Query, st.Query.Pos(), plan.InsertOptionsOf(st)); err != nil {
			return nil, err
		}
	case *ast.StatementSet:
		par := 1
		if n, err := strconv.Atoi(e.sess.Config["parallelism.default"]); err == nil && n > 0 {
			par = n
		}
		return e.explainStatementSet(st, par)
	default:
		return nil, sqlerr.Newf(sqlerr.Unsupported, "EXPLAIN supports queries, INSERT statements and statement sets").At(s.Statement.Pos())
	}
	par := 1
	if n, err := strconv.Atoi(e.sess.Config["parallelism.default"]); err == nil && n > 0 {
		par = n
	}
	return &cli.Result{Message: "\n" + opt.Explain(q, par)}, nil
}

// isUDF reports whether id names a user-defined (not a process table)
// function.
func (e *Engine) isUDF(id string) bool {
	_, ok := e.udfs.Lookup(id)
	return ok
}

// isDeterministic reports a user-defined function's determinism.
func isDeterministic(f udf.Function) bool {
	switch x := f.(type) {
	case *udf.Scalar:
		return !x.NonDeterministic
	case *udf.Table:
		return !x.NonDeterministic
	}
	return true
}
