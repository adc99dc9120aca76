# Everything the tests need comes from the Go module proxy, and the
# JavaScript SDKs from npm with the committed lock files (make jsdeps);
# nothing is installed by hand.
GO ?= go
PKGS := ./...

# golangci-lint is built from the module proxy at a pinned version into a
# repository-local directory (git-ignored), once per version: building it
# takes a while, and CI machines cannot download release binaries.
GOLANGCI_LINT_VERSION := v2.6.2
LINT_BIN := $(CURDIR)/.bin
GOLANGCI_LINT := $(LINT_BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)

.PHONY: test race unit lint fmt bench fuzz build jsdeps debtools parity

# test is what CI runs: formatting, vet, golangci-lint and every test with
# the race detector. Building golangci-lint on a fresh machine is mostly
# waiting for module downloads, so it runs alongside the tests and lint
# runs once both are done.
test:
	@mkdir -p $(LINT_BIN); \
	$(MAKE) --no-print-directory $(GOLANGCI_LINT) > $(LINT_BIN)/install.log 2>&1 & tool=$$!; \
	$(MAKE) --no-print-directory jsdeps debtools race; status=$$?; \
	if ! wait $$tool; then cat $(LINT_BIN)/install.log; exit 1; fi; \
	if [ $$status -ne 0 ]; then exit $$status; fi; \
	$(MAKE) --no-print-directory lint

# jsdeps installs the JavaScript SDKs the conformance tests drive (their
# Go tests skip when node_modules is absent), from the committed lock file.
jsdeps:
	cd test/cosmosjs && npm ci --no-audit --no-fund
	cd test/blobjs && npm ci --no-audit --no-fund
	cd test/filejs && npm ci --no-audit --no-fund
	cd test/queuejs && npm ci --no-audit --no-fund
	cd test/searchjs && npm ci --no-audit --no-fund
	cd test/tablejs && npm ci --no-audit --no-fund
	cd test/console && npm ci --no-audit --no-fund

# debtools installs, from Debian's packages, the clients the tests drive
# that npm and the module proxy do not have: Samba's (smbclient, and
# samba-testsuite for smbtorture) for test/smbclient, the legacy
# Python Cosmos SDK (python3-azure-cosmos, 3.1.1 on bookworm) for
# test/cosmospy, Debian's Azure SDK for Python (python3-azure, with
# azure-search-documents 11.4.0b3 and the Storage SDKs) for test/searchpy
# and test/storagepy, PostgreSQL's server for the shared-database engine,
# Chromium, which test/console drives headless through playwright-core,
# and the az CLI (azure-cli) for test/azcli.
# It installs only what is missing, and only as root with apt-get (CI);
# elsewhere those tests skip.
debtools:
	@pkgs=""; \
	if ! command -v smbclient >/dev/null 2>&1 || ! command -v smbtorture >/dev/null 2>&1; then pkgs="smbclient samba-testsuite"; fi; \
	if ! /usr/bin/python3 -c 'import azure.cosmos.cosmos_client' >/dev/null 2>&1; then pkgs="$$pkgs python3-azure-cosmos"; fi; \
	if ! /usr/bin/python3 -c 'import azure.search.documents' >/dev/null 2>&1; then pkgs="$$pkgs python3-azure"; fi; \
	if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then pkgs="$$pkgs postgresql"; fi; \
	if [ ! -x /usr/bin/chromium ]; then pkgs="$$pkgs chromium"; fi; \
	if ! command -v az >/dev/null 2>&1; then pkgs="$$pkgs azure-cli"; fi; \
	if [ -z "$$pkgs" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$pkgs; \
	else \
	  echo "missing and this is not root:$$pkgs; the SMB client, legacy Python SDK, console browser and az CLI tests will skip"; \
	fi

# race runs every test with the race detector. Unless
# CERULEAN_TEST_POSTGRES already names a database, it starts a throw-away
# PostgreSQL cluster (scripts/test-postgres) for the shared-database
# engine's tests and removes it afterwards.
race:
	@if [ -z "$$CERULEAN_TEST_POSTGRES" ]; then \
	  pgdir=$$(mktemp -d /tmp/cerulean-pg.XXXXXX) && rmdir $$pgdir; \
	  if dsn=$$(scripts/test-postgres start $$pgdir); then export CERULEAN_TEST_POSTGRES="$$dsn"; \
	  else echo "no PostgreSQL cluster: the PostgreSQL engine's tests skip (and fail in CI)"; fi; \
	fi; \
	$(GO) test -race -count=1 -timeout 20m $(PKGS); status=$$?; \
	if [ -n "$$pgdir" ]; then scripts/test-postgres stop $$pgdir; fi; \
	exit $$status

# parity replays Microsoft's recorded Azure SDK traffic (test/parity/
# testdata) against a fresh in-process server per recording and prints
# each recording whose answers differ from Azure's (its first difference)
# and a score per service. It reports; go test ./test/parity/ (part of
# race) checks the result against test/parity/known_differences.txt.
# make parity ONLY=REGEXP replays only the recordings whose service/file name matches.
parity:
	cd test/parity && $(GO) test -count=1 -run '^TestParity$$' -args -parity.report $(if $(ONLY),-parity.only '$(ONLY)')

unit:
	$(GO) test -count=1 -short $(PKGS)

# lint checks formatting (tracked and new files), runs go vet, then
# golangci-lint with the committed .golangci.yaml.
lint: $(GOLANGCI_LINT)
	@files=$$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go' -not -path '*/node_modules/*'); \
	unformatted=$$(gofmt -l $$(for f in $$files; do if [ -f "$$f" ]; then echo "$$f"; fi; done)); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GOLANGCI_LINT) run --allow-serial-runners $(PKGS)

# The versioned file name is the cache key: a new pin builds a new binary.
$(GOLANGCI_LINT):
	@mkdir -p $(LINT_BIN)
	GOBIN=$(LINT_BIN) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(LINT_BIN)/golangci-lint $@

fmt:
	gofmt -w $$(git ls-files '*.go')

# build makes the server and, apart, the load generator (which links the
# Azure SDKs the server does not).
build:
	$(GO) build -o cerulean ./cmd/cerulean
	$(GO) build -o cerulean-bench ./cmd/cerulean-bench

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# fuzz runs each fuzz target for FUZZTIME (default 30s): every Fuzz*
# target in every package, or only the packages FUZZPKGS lists and the
# targets the regular expression FUZZ matches, e.g.
#   make fuzz FUZZPKGS=./internal/smb FUZZ=Sealed FUZZTIME=3m FUZZPARALLEL=1
# FUZZPARALLEL is the number of fuzzing workers (go test -parallel;
# default GOMAXPROCS). A crash stops the loop with the failing input
# written under the package's testdata/fuzz/<target>/, from where every
# plain go test run replays it as a seed. Go before 1.27 can end a timed
# run with a bare "context deadline exceeded" and no failing input (a
# race in its fuzzing coordinator, golang/go#75804); that is reported
# and is not a finding.
FUZZTIME ?= 30s
FUZZPKGS ?= $(PKGS)
FUZZ ?= .
FUZZPARALLEL ?=
fuzz:
	@log=$$(mktemp); trap 'rm -f $$log $$log.rc' EXIT; \
	for pkg in $$($(GO) list $(FUZZPKGS)); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' | grep -E -- '$(FUZZ)'); do \
	    echo "fuzz $$pkg $$target"; \
	    { $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $(if $(FUZZPARALLEL),-parallel $(FUZZPARALLEL)) $$pkg; echo $$? > $$log.rc; } 2>&1 | tee $$log; \
	    if [ "$$(cat $$log.rc)" != 0 ]; then \
	      if grep -q 'Failing input written to' $$log || ! grep -q 'context deadline exceeded' $$log; then exit 1; fi; \
	      echo "fuzz: $$target ended on the fuzzing deadline race (golang/go#75804) with no failing input"; \
	    fi; \
	  done; \
	done
