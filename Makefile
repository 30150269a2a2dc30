# payd — merchant payments service.
GO ?= go
PAYD_TEST_DATABASE_URL ?=

.PHONY: run test build fuzz bench lint

## run: start the service on SQLite in ./payd-data with a demo merchant
run:
	$(GO) run ./cmd/payd serve --dev --test-clock

## build: build the payd binary into ./bin
build:
	$(GO) build -o bin/payd ./cmd/payd

## test: the whole suite (SQLite always; PostgreSQL too when PAYD_TEST_DATABASE_URL is set)
test:
	$(GO) test -count=1 ./...

## fuzz: run each fuzz target briefly
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzParseValue -fuzztime=10s ./money/
	$(GO) test -run='^$$' -fuzz=FuzzDecodeJSON -fuzztime=10s ./api/
	$(GO) test -run='^$$' -fuzz=FuzzCheck -fuzztime=10s ./urlguard/

## bench: payd's merchant API against the database floor, then webhook fan-out, on SQLite and PostgreSQL
## (about 18 minutes on 2 cores; see docs/benchmarks.md; BENCH_FLAGS='--json' for machines)
bench:
	$(GO) run ./cmd/paydbench --go '$(GO)' $(if $(PAYD_TEST_DATABASE_URL),--database-url '$(PAYD_TEST_DATABASE_URL)') $(BENCH_FLAGS)
	$(GO) run ./cmd/hookbench $(if $(PAYD_TEST_DATABASE_URL),--database-url '$(PAYD_TEST_DATABASE_URL)')

lint:
	gofmt -l . | (! grep .)
	$(GO) vet ./...
