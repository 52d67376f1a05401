# A thin veneer: `go test ./...` works without make.
GO ?= go
BIN := bin/kusaw-step

.PHONY: build test demo bench fuzz examples clean

build:
	$(GO) build -o $(BIN) ./cmd/kusaw-step

# The README's test command, and what CI runs.
test:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	$(GO) test -race ./...

# Validate the bundled example documents with the CLI.
demo: build
	@for f in schemas/testdata/valid/*.json; do \
		kind=$$(basename $$f .json | sed 's/^outputs-/outputs:/'); \
		printf '%-28s ' "$$kind"; $(BIN) validate $$kind $$f && echo valid; \
	done

bench:
	$(GO) test -run=NONE -bench=. -benchmem ./...

FUZZTIME ?= 30s
fuzz:
	$(GO) test -run=NONE -fuzz=FuzzParse -fuzztime=$(FUZZTIME) ./protocol
	$(GO) test -run=NONE -fuzz=FuzzSplitter -fuzztime=$(FUZZTIME) ./events

clean:
	rm -rf bin kusaw-runs
