# Everything the tests need comes from the Go module proxy, and the
# JavaScript SDKs from npm with the committed lock files (make jsdeps);
# nothing is installed by hand.
GO ?= go
PKGS := ./...

.PHONY: test race unit lint fmt bench fuzz build jsdeps

# test is what CI runs: formatting, vet, and every test with the race
# detector.
test: lint jsdeps race

# jsdeps installs the JavaScript SDKs the conformance tests drive (their
# Go tests skip when node_modules is absent), from the committed lock file.
jsdeps:
	cd test/cosmosjs && npm ci --no-audit --no-fund

race:
	$(GO) test -race -count=1 -timeout 20m $(PKGS)

unit:
	$(GO) test -count=1 -short $(PKGS)

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

build:
	$(GO) build -o cerulean ./cmd/cerulean

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# fuzz runs each fuzz target for FUZZTIME (default 30s).
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$target"; \
	    $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done
