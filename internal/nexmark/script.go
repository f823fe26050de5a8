package nexmark

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	sqlfiles "github.com/eddy-sql/eddy/examples/nexmark"
)

// Vars are the values of the suite's ${…} placeholders, as Nexmark's
// QueryRunner.initializeVarsMap sets them.
type Vars struct {
	// TPS is first-event.rate and next-event.rate: events per second of
	// event time.
	TPS int64
	// Events is events.num.
	Events int64
	// Person, Auction and Bid are the proportions.
	Person, Auction, Bid int
	// Dir is ${NEXMARK_DIR} (q10 writes under it) and ${FLINK_HOME} (q13
	// reads ${FLINK_HOME}/data/side_input.txt).
	Dir string
	// SubmitTime is ${SUBMIT_TIME} (q10's output directory).
	SubmitTime string
}

// DefaultVars returns the suite's defaults (conf/nexmark.yaml) for n events.
func DefaultVars(events int64) Vars {
	return Vars{TPS: 10_000_000, Events: events, Person: 1, Auction: 3, Bid: 46}
}

func (v Vars) replacer() *strings.Replacer {
	return strings.NewReplacer(
		"${TPS}", strconv.FormatInt(v.TPS, 10),
		"${EVENTS_NUM}", strconv.FormatInt(v.Events, 10),
		"${PERSON_PROPORTION}", strconv.Itoa(v.Person),
		"${AUCTION_PROPORTION}", strconv.Itoa(v.Auction),
		"${BID_PROPORTION}", strconv.Itoa(v.Bid),
		"${NEXMARK_TABLE}", "datagen",
		"${NEXMARK_DIR}", v.Dir,
		"${FLINK_HOME}", v.Dir,
		"${SUBMIT_TIME}", v.SubmitTime,
	)
}

// File returns one of the suite's files (ddl_gen, ddl_views, q0 … q22)
// with the placeholders filled in.
func File(name string, v Vars) (string, error) {
	b, err := fs.ReadFile(sqlfiles.FS, name+".sql")
	if err != nil {
		return "", fmt.Errorf("reading the Nexmark script %s: %w", name, err)
	}
	return v.replacer().Replace(string(b)), nil
}

// Script returns the script the suite runs for a query: the source
// table, the views and the query (QueryRunner.initializeAllSqlLines,
// without ddl_kafka.sql, which declares the Kafka variant of the source).
func Script(query string, v Vars) (string, error) {
	var b strings.Builder
	for _, name := range []string{"ddl_gen", "ddl_views", query} {
		s, err := File(name, v)
		if err != nil {
			return "", err
		}
		b.WriteString(strings.TrimRight(s, "; \n"))
		b.WriteString(";\n")
	}
	return b.String(), nil
}

// QueryNames returns q0 … q22 in numeric order.
func QueryNames() []string {
	var out []string
	for _, q := range Queries {
		out = append(out, q.Name)
	}
	sort.Slice(out, func(i, j int) bool { return queryNumber(out[i]) < queryNumber(out[j]) })
	return out
}

func queryNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "q"))
	return n
}
