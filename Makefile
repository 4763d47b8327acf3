# Strata: common tasks. `make help` lists them.
#
# Every target that builds first runs `deps` (.ci/ensure-deps), which installs libzstd-dev and
# pkg-config with apt-get when they are missing and checks that Swift 6.1+ is on PATH.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

SWIFT ?= swift
# Where `make demo` puts its database.
DEMO_DIR ?= $(or $(TMPDIR),/tmp)/strata-demo
# The tests `make asan` runs: change notifications and objects crossing threads.
ASAN_TESTS ?= VersionPinningTests|AutorefreshTests|ObserveTests|ObserveRandomTests|ObserverLifetimeTests|ThreadSafe|AsyncWrite|CollectionFreezeTests|LinkKeyPath|ChangeSequenceTests|ReadOnlyDatabaseTests
# How long `make fuzz-smoke` fuzzes, in seconds.
FUZZ_SECONDS ?= 30

.PHONY: help deps build demo test tsan asan fuzz-smoke cli-check doc-paths layers docs docs-check ci clean

help:
	@echo "make demo        build the strata tool (release), run its object-database demo in $(DEMO_DIR), verify it, print its schema and objects"
	@echo "make test        run the whole test suite (swift test)"
	@echo "make tsan        run the concurrency, store, index, scan, column-cache, thread-crossing, follower, encryption and copy tests under the thread sanitizer"
	@echo "make asan        run the notification and thread-crossing tests under the address sanitizer, leaks checked (lsan.supp)"
	@echo "make cli-check   end-to-end checks of the strata tool (exit codes, corruption, JSON)"
	@echo "make doc-paths   check that every path, type and section README.md, docs/ and comments name exists"
	@echo "make docs        build the DocC documentation of Strata and StrataStorage (one combined archive)"
	@echo "make docs-check  make docs, failing on any DocC warning or on a documented _-prefixed symbol"
	@echo "make layers      the folder dependency graphs of Strata and StrataStorage (no new cycle); the tool uses no testing SPI"
	@echo "make fuzz-smoke  run each fuzz target for $(FUZZ_SECONDS) s (Fuzz/run-smoke.sh)"
	@echo "make ci          everything CI runs (.ci/run)"
	@echo "make deps        install libzstd-dev and pkg-config if missing; check for swift"
	@echo "make build       debug build of every target"
	@echo "make clean       remove the build directories"

deps:
	@bash .ci/ensure-deps

build: deps
	$(SWIFT) build

demo: deps
	$(SWIFT) build -c release --product strata
	.build/release/strata demo "$(DEMO_DIR)" --overwrite
	@echo
	.build/release/strata verify --deep "$(DEMO_DIR)"
	@echo
	.build/release/strata schema "$(DEMO_DIR)"
	@echo
	.build/release/strata inspect "$(DEMO_DIR)" --class Person
	@echo
	.build/release/strata inspect "$(DEMO_DIR)" --class Dog --where "age > 3"

test: deps
	$(SWIFT) test

# The crash-at-every-sync-point and dictionary-format tests run on one thread: the thread
# sanitizer has nothing to find in them, and they were most of its time.
tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter 'VersionPinningTests|AutorefreshTests|ConcurrencyTests|StoreTests|CompactionTests|KeyTreeTests.testConcurrent|ScanTests|AsyncWrite|ActorDatabaseTests|ThreadSafe|CollectionFreezeTests|WalkColumnTests|ColumnUpdateTests|ObserveTests|ObserveRandomTests|StoreRefreshTests|ReadOnlyDatabaseTests|FollowProcessTests|ChangeSequenceTests|WriteCopy|EncryptedEngineTests|EncryptedDatabaseTests' \
		--skip 'testCrashAtEverySyncPoint|DictionaryCompactionTests'

# Leak detection is on (LeakSanitizer's default on Linux); lsan.supp hides XCTest's own leaks.
asan: deps
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/lsan.supp \
		$(SWIFT) test --sanitize=address --scratch-path .build-asan --filter '$(ASAN_TESTS)'

fuzz-smoke: deps
	@test -f Fuzz/run-smoke.sh || { echo "fuzz-smoke: Fuzz/run-smoke.sh is missing" >&2; exit 1; }
	bash Fuzz/run-smoke.sh $(FUZZ_SECONDS)

# A debug build: after `make test` it is already built, and assertions stay on.
cli-check: deps
	$(SWIFT) build --product strata
	bash .ci/cli-check .build/debug/strata

# No build: python3 and git only.
doc-paths:
	python3 .ci/check-doc-paths

# Both catalogs in one archive: Strata's links to StrataError, CompactionPolicy and Durability
# (`/StrataStorage/...`) resolve only against StrataStorage's archive.
DOCS_ARCHIVE := .build/plugins/Swift-DocC/outputs/Strata.doccarchive
DOCS_LOG := .build/docs.log

docs: deps
	$(SWIFT) package generate-documentation --target Strata --target StrataStorage \
		--enable-experimental-combined-documentation
	@echo "docs: $(DOCS_ARCHIVE)"

# `_`-prefixed public declarations exist for generic code; the symbol graph leaves them out,
# and this keeps it so.
docs-check: deps
	@mkdir -p .build
	$(MAKE) --no-print-directory docs 2>&1 | tee $(DOCS_LOG)
	@if grep -q "warning:" $(DOCS_LOG); then \
		echo "docs-check: $$(grep -c 'warning:' $(DOCS_LOG)) DocC warning(s):" >&2; \
		grep -A2 "warning:" $(DOCS_LOG) >&2; exit 1; fi
	@underscored=$$(grep -o '"title":"_[A-Za-z][^"]*"' $(DOCS_ARCHIVE)/index/index.json | head -n 5 || true); \
	if [[ -n "$$underscored" ]]; then echo "docs-check: pages of _-prefixed symbols: $$underscored" >&2; exit 1; fi
	@echo "docs-check: no DocC warnings"

# The object model's core (docs/design.md, "Folder layers"): Database and Model reach each other
# (an Object holds its Database, the Database makes Objects); that cycle may shrink, not grow.
# Every other folder of either module stays out of any cycle.
CORE_FOLDERS := Database,Model

layers:
	python3 .ci/folder-graph Sources/Strata --known-cycle $(CORE_FOLDERS)
	python3 .ci/folder-graph Sources/StrataStorage
	@if grep -rln '@_spi(Testing)' Sources/StrataTool; then \
		echo "layers: the strata tool imports the testing SPI (above); use @_spi(Tooling) or public API" >&2; exit 1; fi

ci:
	bash .ci/run

clean:
	rm -rf .build .build-tsan .build-asan
