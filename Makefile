# Make targets for Eddy. `make test` is the test command of the README and CI.
GO ?= go

.PHONY: build test testrace differential tutorial acceptance bench nexmark state-size fuzz fmt vet check rewrite wasm-examples

build:
	$(GO) build -o bin/eddy ./cmd/eddy

# Every example function as a WebAssembly module, build/wasm/<Name>.wasm
# exporting examples.<Name> (the artifacts of docs/artifacts.md).
WASM_EXAMPLES = OrderStatusTracker ThresholdFilter Median InactivityAlert TtlCountdown MtControlStream PassThroughEnrich ChangelogAuditor RunningMax IdleAlert

wasm-examples:
	@mkdir -p build/wasm
	for n in $(WASM_EXAMPLES); do \
		GOOS=wasip1 GOARCH=wasm GOWASM=satconv,signext $(GO) build -buildmode=c-shared -trimpath -o build/wasm/$$n.wasm ./examples/wasm/$$n || exit 1; \
	done

# The tests load the example functions' modules from build/wasm
# (TestAcceptanceWithArtifacts).
test: wasm-examples
	$(GO) test -race -count=1 ./...

# Random queries through Eddy and DuckDB, results compared (needs cgo).
# Flags after -args: -diff.seed, -diff.count, -diff.budget, -diff.query.
differential:
	$(GO) test -tags duckdb -run TestDifferential -count=1 ./internal/engine/
	$(GO) test -tags duckdb -run TestReferenceAgainstDuckDB -count=1 ./internal/nexmark/reference/

tutorial: build
	rm -rf .eddy/tutorial && ./bin/eddy sql --data-dir .eddy/tutorial -f docs/tutorial/order_status.sql

acceptance: build
	../shared/tools/check-acceptance ./bin/eddy ../shared/acceptance

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/runtime/ ./types/ ./internal/format/
	$(GO) test -run '^$$' -bench 'KafkaPTFKafka|FranzLoop' -benchtime 1x ./internal/engine/

# The Nexmark queries Eddy runs, one core, with what each costs (docs/nexmark.md).
# NEXMARK_ARGS passes flags, e.g. make nexmark NEXMARK_ARGS='--queries q0,q4 --events 10000000'.
NEXMARK_ARGS ?= --events 1000000
nexmark: build
	./bin/eddy bench nexmark $(NEXMARK_ARGS)

# The state-size test: a GROUP BY over 10M distinct keys stays under 2 GiB RSS
# (minutes; not part of `make test`). STATE_SIZE_KEYS changes the key count.
STATE_SIZE_KEYS ?= 10000000
state-size:
	EDDY_STATE_SIZE=1 EDDY_STATE_SIZE_KEYS=$(STATE_SIZE_KEYS) $(GO) test -count=1 -run TestStateSize10MKeys -v -timeout 30m ./internal/engine/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./internal/sql/parser/
	$(GO) test -run '^$$' -fuzz FuzzDecodeRow -fuzztime 30s ./types/
	for f in FuzzDecodeJSON FuzzDecodeAvro FuzzDecodeRaw FuzzDecodeRegistry FuzzJSONFastVsSlow FuzzDecodeCSV FuzzDecodeDebezium; do \
		$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 30s ./internal/format/ || exit 1; \
	done

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...

rewrite:
	$(GO) test ./... -rewrite

check: fmt vet test
