# Quick start: `make demo` and `make test`. Both install missing packages first.
SWIFT ?= swift
BIN_DEBUG = .build/debug
BIN_RELEASE = .build/release

.PHONY: deps build release test unit integration fuzz demo bench clean

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

unit: build
	$(SWIFT) test

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
