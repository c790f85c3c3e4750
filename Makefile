# Quick start: `make demo` and `make test`. Both install missing packages first.
SWIFT ?= swift
BIN_DEBUG = .build/debug
BIN_RELEASE = .build/release
# A target that imports a module it does not declare is a build error, so the layers in
# Package.swift are the rule, not a suggestion (docs/architecture.md).
CHECK_IMPORTS = --explicit-target-dependency-import-check=error

.PHONY: deps build release test unit integration fuzz demo bench clean

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build $(CHECK_IMPORTS)

release: deps
	$(SWIFT) build -c release $(CHECK_IMPORTS)

unit: build
	$(SWIFT) test $(CHECK_IMPORTS)

integration: build
	LOCUS_BIN=$(CURDIR)/$(BIN_DEBUG) python3 -m pytest -q Tests/IntegrationTests

fuzz: deps
	bash Fuzz/run-all.sh $${FUZZ_SECONDS:-30}

test: unit fuzz integration

demo: release
	$(BIN_RELEASE)/locus demo

bench: release
	$(BIN_RELEASE)/locus bench all

clean:
	rm -rf .build
