# starbench — build and test entry points. `make test` is the command the
# README and CI use.

GO ?= go

.PHONY: test deps build vet fmt-check quickstart fuzz

# -p 1: one package at a time. Several tests compare speeds (a slowed proxy
# against a direct connection, starbench against sysbench) or load the
# machine on purpose (1200 threads for a minute); on a 2-core machine they
# must not share it with another package's tests.
test: deps
	$(GO) test -p 1 -timeout 30m ./...
	# A workload written in a module of its own against the public API
	# (go test ./... skips nested modules).
	cd testdata/extworkload && $(GO) test -count=1 ./...

deps:
	bash scripts/test-deps.sh

# Each parser's fuzz target for $(FUZZTIME), one after another (CI runs it
# after the tests). A failing input is kept under
# <package>/testdata/fuzz/<target>/, and plain `go test` runs it from then on.
FUZZTIME ?= 5s
fuzz:
	FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

build:
	$(GO) build -o bin/starbench ./cmd/starbench

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

quickstart:
	$(GO) run ./cmd/starbench run plans/quickstart.star
