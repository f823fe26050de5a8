// Package nexmark holds the SQL of the Nexmark benchmark as the Nexmark
// suite publishes it for Flink (github.com/nexmark/nexmark, nexmark-flink
// at 6b3646c, src/main/resources/queries): the source table (ddl_gen.sql),
// the person, auction and bid views (ddl_views.sql) and the queries
// q0.sql … q22.sql, unchanged, with the suite's ${…} placeholders. `eddy
// bench nexmark` fills them in as the suite's QueryRunner does and runs
// them; see docs/nexmark.md.
package nexmark

import "embed"

// FS holds the scripts.
//
//go:embed *.sql
var FS embed.FS
