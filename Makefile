# A thin veneer: `go test ./...` works without make.
GO ?= go
BIN := bin/kusaw-step

.PHONY: build test demo bench fuzz clean

# A static binary (no cgo): it starts without the dynamic loader, about
# 4 ms less for every command and every sandbox helper it runs. Its one
# cgo user, net, then always resolves names in Go, as it does by default
# on Linux anyway.
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/kusaw-step

# The README's test command, and what CI runs.
test:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	$(GO) test -race -parallel 8 -timeout 30m ./...

# Run the bundled Go example step through the runner and show the verdict.
demo: build
	$(GO) build -o bin/hello ./examples/steps/hello
	$(BIN) run --force --out kusaw-runs/demo --config '{"name":"Kusaw","delay":"250ms"}' bin/hello

# The packages' micro-benchmarks, then the runner side by side with its
# baselines (bare exec, cat), ending with the table of the README's
# Performance section.
BENCHTIME ?= 3x
bench:
	$(GO) test -run=NONE -bench=. -benchmem $$($(GO) list ./... | grep -v /cmd/kusaw-step$$)
	$(GO) test -run=NONE -bench=. -benchtime=$(BENCHTIME) ./cmd/kusaw-step

FUZZTIME ?= 30s
fuzz:
	$(GO) test -run=NONE -fuzz=FuzzParse -fuzztime=$(FUZZTIME) ./protocol
	$(GO) test -run=NONE -fuzz=FuzzSplitter -fuzztime=$(FUZZTIME) ./events
	$(GO) test -run=NONE -fuzz=FuzzFastPath -fuzztime=$(FUZZTIME) ./events

clean:
	rm -rf bin kusaw-runs
