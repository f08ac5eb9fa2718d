# agentmail needs cgo (mattn/go-sqlite3) and SQLite's FTS5 module: every Go
# command here builds with the sqlite_fts5 tag. sqlite_omit_load_extension
# leaves out SQLite's dlopen, which agentmail never uses.
GO      ?= go
TAGS    := sqlite_fts5,sqlite_omit_load_extension,urfave_cli_no_docs
BIN     := bin/agentmail
GOFLAGS_ALL := -tags $(TAGS)
# The binary is linked dynamically, as Go links cgo programs by default, so
# that `make build` works wherever gcc does. `make build-static` links it
# statically instead: no dynamic loader or shared libraries to map saves
# every process a fraction of a millisecond. That needs glibc's static
# libraries (Debian: libc6-dev, which cgo needs anyway).
LDFLAGS ?=
STATIC_LDFLAGS := -linkmode external -extldflags -static
# agentmail version prints this (the go command records no git revision in
# a linked worktree).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
export CGO_ENABLED := 1

.PHONY: build build-static install test bench bench-cli bench-import bench-tasks bench-mcp bench-serve bench-sync pgo lint demo clean

build:
	$(GO) build $(GOFLAGS_ALL) -ldflags '$(LDFLAGS) -X main.version=$(VERSION)' -o $(BIN) ./cmd/agentmail

build-static:
	$(GO) build $(GOFLAGS_ALL) -ldflags '$(STATIC_LDFLAGS) -X main.version=$(VERSION)' -o $(BIN) ./cmd/agentmail

install:
	$(GO) install $(GOFLAGS_ALL) -ldflags '$(LDFLAGS) -X main.version=$(VERSION)' ./cmd/agentmail

# The real clients run inside go test: the TypeScript SDK and MCP
# Inspector (testdata/mcp-node, npm ci first) and mark3labs/mcp-go
# (testdata/mcp-go, a module of its own that TestMCPGoClient runs go test
# in, so that agentmail does not depend on it).
test: lint
	$(GO) test $(GOFLAGS_ALL) -count=1 ./...

# Whole-process benchmarks against a seeded store (see cmd/agentmail-bench),
# plus the in-process micro-benchmarks. BENCH_MESSAGES sets the archive size.
BENCH_MESSAGES ?= 100000
# BENCH_DIR keeps the seeded store there, to be used again by the next run
# with as many messages (default: a temporary store, seeded each time).
BENCH_DIR ?=
BENCH_FLAGS = -bin $(BIN) -messages $(BENCH_MESSAGES) $(if $(BENCH_DIR),-dir $(BENCH_DIR))
# The MCP server's tool calls are timed next, in one live `agentmail mcp`
# process, and last agentmail serve's pages, API and sends over HTTP;
# bench-mcp and bench-serve time only those.
bench: build
	$(GO) test $(GOFLAGS_ALL) -run '^$$' -bench . -benchmem ./internal/...
	$(GO) run $(GOFLAGS_ALL) ./cmd/agentmail-bench $(BENCH_FLAGS)
	$(GO) run $(GOFLAGS_ALL) ./cmd/agentmail-bench $(BENCH_FLAGS) -only import

# Whole command line processes (--version, check, inbox, show, search,
# guard check, guard edit, send) in turns with a cgo program that does nothing, the
# floor, and with BENCH_BASE when set (another agentmail binary, e.g. the
# one before a change): medians, over the floor and against the base.
# BENCH_PEER, an amail binary (github.com/thirteen37/amail, built from its
# repository), adds its version, check, inbox and send to the same turns.
# BENCH_BASE_REV=REV builds the base from a revision of this repository
# instead (the last commit landed, say: BENCH_BASE_REV=origin/main).
BENCH_BASE ?=
BENCH_BASE_REV ?=
BENCH_PEER ?=
BENCH_BASE_FLAGS = $(if $(BENCH_BASE),-base $(BENCH_BASE)) $(if $(BENCH_BASE_REV),-base-rev $(BENCH_BASE_REV))
bench-cli: build
	$(GO) run $(GOFLAGS_ALL) ./cmd/agentmail-bench $(BENCH_FLAGS) -only cli-turns $(BENCH_BASE_FLAGS) $(if $(BENCH_PEER),-peer $(BENCH_PEER))

# import agent-mail of a 100,000-message archive in mcp_agent_mail's layout
# (written deterministically into BENCH_DIR, or a temporary directory, and
# kept there for the next run) into a fresh store: msg/s, with BENCH_BASE
# in turns when set.
bench-import: build
	$(GO) run $(GOFLAGS_ALL) ./cmd/agentmail-bench $(BENCH_FLAGS) -only import $(BENCH_BASE_FLAGS)

# Work items at 10,000 tasks (issue 27): work and task list --ready over
# --version, and list_ready_work and claim_task in a live MCP server.
bench-tasks: build
	$(GO) run $(GOFLAGS_ALL) ./cmd/agentmail-bench $(BENCH_FLAGS) -only tasks

bench-mcp: build
	$(GO) run $(GOFLAGS_ALL) ./cmd/agentmail-bench $(BENCH_FLAGS) -only mcp

bench-serve: build
	$(GO) run $(GOFLAGS_ALL) ./cmd/agentmail-bench $(BENCH_FLAGS) -only serve

# cmd/agentmail/default.pgo is the profile the go command optimizes the
# binary by (profile-guided optimization, on by default in go build): a CPU
# profile of agentmail mcp serving bench-mcp's tool calls. Take it again
# after large changes to the paths those calls run.
pgo: build
	$(GO) run $(GOFLAGS_ALL) ./cmd/agentmail-bench $(BENCH_FLAGS) -only mcp -cpuprofile cmd/agentmail/default.pgo

# sync against a bare remote here: nothing new vs git fetch, reserve vs git
# push, 1,000 new messages on each side; at 10k and 100k messages.
bench-sync: build
	$(GO) run $(GOFLAGS_ALL) ./cmd/agentmail-bench -bin $(BIN) -only sync -runs 20

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(GOFLAGS_ALL) ./...

demo: build
	./scripts/demo.sh $(BIN)

clean:
	rm -rf bin
