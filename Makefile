# starbench — build and test entry points. `make test` is the command the
# README and CI use.

GO ?= go

.PHONY: test deps build vet fmt-check quickstart

test: deps
	$(GO) test -timeout 30m ./...

deps:
	bash scripts/test-deps.sh

build:
	$(GO) build -o bin/starbench ./cmd/starbench

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

quickstart:
	$(GO) run ./cmd/starbench run plans/quickstart.star
