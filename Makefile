# payd — merchant payments service.
GO ?= go
PAYD_TEST_DATABASE_URL ?=
# STAGE is the delivery stage `make run` serves: v1 (default), M2
# (disputes and chargebacks: `make run STAGE=M2`) or M5 (M2, payment links
# and payouts: `make run STAGE=M5`). PAYD_STAGE does the same.
STAGE ?= $(or $(PAYD_STAGE),v1)

.PHONY: run test test-citus citus build fuzz bench bench-citus lint chaos failover cluster-faults generate image image-test dist dist-check

## run: start the service on SQLite in ./payd-data with a demo merchant (STAGE=M2 for disputes, STAGE=M5 for payment links and payouts too)
run:
	$(GO) run ./cmd/payd serve --dev --test-clock --stage $(STAGE)

## build: build the payd binary into ./bin
build:
	$(GO) build -buildvcs=auto -o bin/payd ./cmd/payd

## image: build payd's OCI image localhost/payd:VERSION with buildah (deploy/Containerfile, FROM scratch; docs/deployment.md)
image:
	scripts/image

## image-test: build the image into a storage of the test's own and run it with podman on SQLite, then two containers on
## PostgreSQL and Redis (PAYD_TEST_DATABASE_URL, PAYD_TEST_REDIS_URL): ready, a payment's whole path, drain on SIGTERM, nothing left
image-test:
	PAYD_IMAGE_REQUIRED=1 $(GO) test -count=1 -timeout 15m -run '^TestImage$$' ./deploy/

## dist: release archives into dist/: payd for linux and darwin, amd64 and arm64, with README, the linked modules'
## licences and SHA256SUMS (DIST_PLATFORMS='linux/amd64' for fewer)
DIST_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
dist:
	rm -rf dist
	scripts/dist dist $(DIST_PLATFORMS)

## dist-check: build the release archives twice and compare them byte for byte
dist-check:
	scripts/dist-check $(DIST_PLATFORMS)

## generate: regenerate the Go client's generated layer (client/openapi.gen.go) from openapi/openapi.yaml
generate:
	$(GO) generate ./client/

## test: the whole suite (SQLite always; PostgreSQL too when PAYD_TEST_DATABASE_URL is set)
# The timeout is per package: the merchant API's package takes about 6
# minutes on 2 cores, and twice that on a machine shared with other work;
# the default of 10 minutes would fail it there for nothing, and a hung
# test still ends within CI's budget.
test:
	$(GO) test -count=1 -timeout 25m ./...

## test-citus: the store suite and the merchant API's suite on a Citus cluster of their own (a coordinator and two
## workers on free loopback ports; scripts/install-citus builds the extension from ../shared/vendor when it is missing),
## with statements that would touch more than one merchant's shard group refused (docs/operations.md). Four tests at
## a time: a test on a cluster waits on the nodes more than it works. The bound is per package: the merchant API's
## package takes about 6 minutes beside the store suite since tests share emptied schemas (paydtest.Main; 14 to 22
## before, when each test distributed a fresh one), and beside `make test` it once ran past 40, which is why .ci/run
## runs this after it.
CITUS_PACKAGES ?= ./internal/storetest/ ./internal/sqlstore/ ./internal/api/
test-citus:
	scripts/install-citus
	PAYD_TEST_BACKENDS=citus $(GO) run ./cmd/paydcitus -- $(GO) test -count=1 -timeout 45m -parallel 4 $(CITUS_PACKAGES)

## citus: test-citus over every package that runs on a database
citus:
	$(MAKE) test-citus CITUS_PACKAGES=./...

## fuzz: run each fuzz target briefly (a few seconds each on 2 cores)
# Budgets are counts of inputs, not durations: with a duration, Go 1.26's
# fuzzing coordinator can report "context deadline exceeded" as a failure
# when the time runs out (golang/go#75804, fixed in Go 1.27).
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzParseValue -fuzztime=500000x ./money/
	$(GO) test -run='^$$' -fuzz=FuzzDecodeJSON -fuzztime=20000x ./internal/httpapi/
	$(GO) test -run='^$$' -fuzz=FuzzDecodeRefusesDuplicateNames -fuzztime=20000x ./internal/httpapi/
	$(GO) test -run='^$$' -fuzz=FuzzCheck -fuzztime=200000x ./internal/urlguard/
	$(GO) test -run='^$$' -fuzz=FuzzCell -fuzztime=200000x ./internal/csvexport/

## bench: payd's merchant API against the database floor, balances and refunds of a shop with 10^4 and
## 10^6 payments, a sandbox reset of 10^5 test payments, then webhook fan-out, on SQLite and PostgreSQL (about 50 minutes on 2 cores and 60 GB of
## free disk; see docs/benchmarks.md; BENCH_FLAGS='--json' for machines; BENCH_SCALE=10000,100000 for a
## shorter scale check)
BENCH_SCALE ?= 10000,1000000
bench:
	$(GO) run ./cmd/paydbench --go '$(GO)' $(if $(PAYD_TEST_DATABASE_URL),--database-url '$(PAYD_TEST_DATABASE_URL)') $(BENCH_FLAGS)
	$(GO) run ./cmd/paydbench --go '$(GO)' $(if $(PAYD_TEST_DATABASE_URL),--database-url '$(PAYD_TEST_DATABASE_URL)') \
		--phases balance,refund --clients 16 --seed-payments $(BENCH_SCALE) $(BENCH_FLAGS)
	$(GO) run ./cmd/paydbench --go '$(GO)' $(if $(PAYD_TEST_DATABASE_URL),--database-url '$(PAYD_TEST_DATABASE_URL)') \
		--phases reset --runs 1 --seed-payments 100000 $(BENCH_FLAGS)
	$(GO) run ./cmd/hookbench $(if $(PAYD_TEST_DATABASE_URL),--database-url '$(PAYD_TEST_DATABASE_URL)')

## bench-citus: payd on a throwaway Citus cluster (a coordinator and two workers, 32 shards a table) beside payd on a
## throwaway single PostgreSQL, both started by paydbench with the same settings and pg_stat_statements, never the
## machine's own server: create, get, list, refund and 200 merchants' creations in turn, with each server's CPU and
## statements per operation, the cluster/single ratios and the workers' shares (about 7 minutes on 2 cores, and 5 more the first time for Citus;
## scripts/install-citus builds Citus when missing; see docs/benchmarks.md; BENCH_FLAGS='--json' for machines)
bench-citus:
	scripts/install-citus
	$(GO) run ./cmd/paydbench --go '$(GO)' --citus $(BENCH_FLAGS)

## chaos: the fault test: three instances on a throwaway PostgreSQL and Redis of their own, under load,
## with instances killed and PostgreSQL and Redis restarted (about 2 minutes; CHAOS_FLAGS='--duration 10m' for longer)
chaos:
	$(GO) run ./cmd/paydchaos $(CHAOS_FLAGS)

## failover: two instances on a Patroni cluster of three PostgreSQL nodes of its own (etcd, synchronous_mode), under load,
## with the primary killed once and switched over once (about 2 minutes; needs the patroni and etcd-server packages;
## FAILOVER_FLAGS='--kills 5 --switchovers 5' for the long form, see docs/operations.md)
failover:
	$(GO) run ./cmd/paydchaos --failover $(FAILOVER_FLAGS)

## cluster-faults: two instances on a Citus cluster of their own (a coordinator and two workers, 8 shards a table) serving
## 24 merchants under load with payouts: a third worker joins and shard groups move onto it one by one, the busiest
## merchant's group moves on its own, then a worker is killed and started again (about 4 minutes; needs Citus:
## scripts/install-citus; CLUSTER_FLAGS='--worker-kills 3 --worker-down 30s' for the long form, see docs/operations.md)
cluster-faults:
	scripts/install-citus
	$(GO) run ./cmd/paydchaos --cluster --clients 24 $(CLUSTER_FLAGS)

lint:
	gofmt -l . | (! grep .)
	$(GO) vet ./...
