# Parlour — the two commands a newcomer needs are `make run` and `make test`; `make help`
# lists the others. A `## make TARGET: what it does` comment documents a target for
# `make help` (its next `## ` lines continue it); a `## --- NAME` line heads a section.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# what `make run` needs: the `all` extra only (no test tools); a full install ($(STAMP)) does too
RUN_STAMP := $(VENV)/.installed-run
INSTALL_LOG := $(VENV)/install.log

# setup.py compiles these with mypyc in place: an edit of one rebuilds it on the next make.
# The old builds are unlinked first, not overwritten: a running process keeps what it loaded.
COMPILED := services/parlour/engine/hearts.py services/parlour/engine/wizard.py \
	services/parlour/engine/kaiser.py services/parlour/engine/crazy8s.py services/parlour/ai/hearts_search.py \
	services/parlour/ai/wizard_search.py services/parlour/ai/crazy8s_search.py

.DEFAULT_GOAL := help
.PHONY: help run test install bench-deps clean lint typecheck proto proto-check fuzz soak \
	leak-check abuse bench bench-engine bench-service bench-act-cost bench-notify bench-replay \
	bench-scale bench-analysis analysis-calibration selfplay selfplay-expert node-client \
	compose-test partition-test

## --- Start here --------------------------------------------------------------------------

## make run: the game service (embedded SQLite), an AI worker and the browser gateway;
## prints the command that opens the terminal client
run: $(RUN_STAMP)
	$(BIN)/parlour demo

## make test: lint, format check, types, import boundaries, contract lint, whole test suite:
## one pytest worker per core (a file's tests in one worker), then the terminal and browser
## tests on their own (they time what a person sees, so nothing else loads the machine then)
UI_TESTS := tests/tui tests/web
test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest -q -n auto --dist loadfile $(UI_TESTS:%=--ignore=%)
	$(BIN)/python -m pytest -q $(UI_TESTS)

## make help: this list of targets, from the Makefile's `## make` comments
# awk joins each target's comment lines and wraps them to fit beside the names.
help:
	@awk 'function flush(  n, i, words, line) { if (name == "") return; \
			n = split(text, words, " "); line = ""; \
			for (i = 1; i <= n; i++) { \
				if (line != "" && length(line) + 1 + length(words[i]) > 72) { \
					printf "  %-21s %s\n", name, line; name = ""; line = words[i] \
				} else line = (line == "" ? words[i] : line " " words[i]) \
			} \
			printf "  %-21s %s\n", name, line; name = "" } \
		/^## --- / { flush(); sub(/^## --- /, ""); sub(/ -*$$/, ""); printf "\n%s\n", $$0; next } \
		/^## make [^ :]+:/ { flush(); sub(/^## /, ""); name = $$0; sub(/:.*/, "", name); \
			text = $$0; sub(/^[^:]*: */, "", text); next } \
		/^## / && name != "" { sub(/^## /, ""); text = text " " $$0; next } \
		{ flush() }' $(firstword $(MAKEFILE_LIST))

## --- The environment ---------------------------------------------------------------------

$(BIN)/python:
	@echo "parlour: creating the virtual environment $(VENV)"
	@$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)

# Each step says what it does; pip's and setuptools' chatter goes to $(INSTALL_LOG),
# shown (its end) only if the step fails.
$(RUN_STAMP): pyproject.toml setup.py $(COMPILED) | $(BIN)/python
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ]; then touch $@; exit 0; fi; \
	echo "parlour: [1/2] upgrading pip"; \
	$(BIN)/python -m pip install --quiet --upgrade pip > $(INSTALL_LOG) 2>&1 \
		|| { tail -n 40 $(INSTALL_LOG); exit 1; }; \
	echo "parlour: [2/2] installing Parlour and what it needs to play (a few minutes;"; \
	echo "         with a C compiler, the game engines are compiled with mypyc)"; \
	rm -f $(COMPILED:.py=.cpython-*.so) $(COMPILED:.py=__mypyc.cpython-*.so); \
	$(BIN)/python -m pip install --quiet -e '.[all]' >> $(INSTALL_LOG) 2>&1 \
		|| { tail -n 40 $(INSTALL_LOG); exit 1; }; \
	echo "parlour: installed; starting the game service, a worker and the gateway"; \
	touch $@

$(STAMP): pyproject.toml setup.py $(COMPILED) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	rm -f $(COMPILED:.py=.cpython-*.so) $(COMPILED:.py=__mypyc.cpython-*.so)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

## make install: the virtualenv (.venv) with Parlour (the engine compiled) and its test tools
install: $(STAMP)

## make bench-deps: also the benchmarks' extra packages (OpenSpiel and the like)
bench-deps: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'

## make clean: remove the virtualenv, build outputs and the tools' caches
clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache

## --- Checks and generated code -----------------------------------------------------------

## make lint: ruff's lint and format check
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## make typecheck: mypy (strict) over the services and the clients
typecheck: $(STAMP)
	$(BIN)/mypy services/parlour/engine
	$(BIN)/mypy services/parlour/service clients/client
	$(BIN)/mypy services/parlour/ai services/parlour/gateway services/parlour/cli \
		services/parlour/replay services/parlour/contract services/parlour/*.py clients/tui \
		services/parlour/words

## make proto: regenerate services/parlour/v1 from proto/parlour/v1 (commit the result)
proto: $(STAMP)
	$(BIN)/buf lint proto
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m grpc_tools.protoc -Iproto \
		--python_out=services --grpc_python_out=services \
		--mypy_out=services --mypy_grpc_out=services proto/parlour/v1/*.proto

## make proto-check: fail if the committed generated code is stale or buf lint fails
proto-check: $(STAMP)
	$(BIN)/python -m pytest -q tests/service/test_contract.py

## make fuzz: hypothesis-generated requests (every RPC, with and without tokens, at and past
## every limit) against parlour serve on a scratch Postgres database and through the gateway;
## prints the requests sent, a count by status, any UNKNOWN/INTERNAL/5xx and any write
## from a refused request. FUZZ_REQUESTS=100000 by default; PARLOUR_FUZZ_POSTGRES_URL picks the server.
FUZZ_REQUESTS ?= 100000
fuzz: $(STAMP)
	mkdir -p build/fuzz
	nice -n 10 $(BIN)/python -m tests.fuzz.campaign --requests $(FUZZ_REQUESTS) --logs build/fuzz

## make soak: the long versions of make test's sampled checks (random playouts, replay
## determinism, the leak check), for before a release
soak: $(STAMP)
	PARLOUR_PLAYOUT_GAMES=1000 PARLOUR_REPLAY_GAMES=400 LEAK_GAMES=300 nice -n 10 \
		$(BIN)/python -m pytest -q tests/engine/test_random_playout.py \
		tests/replay/test_determinism.py tests/service/test_no_leaks.py

## make abuse: a bounded hostile client (loopback only, stops by itself) against two replicas,
## a worker and the gateway on a scratch Postgres database; prints the tables one address
## hosts a minute, a victim's Act p50/p95 alone and under each attack, what was accepted
## past the caps, memory, idle and half-sent connections closed, forged page tokens.
## PARLOUR_ABUSE_POSTGRES_URL picks the server.
abuse: $(STAMP)
	mkdir -p build/abuse
	$(BIN)/python -m tests.abuse.run --logs build/abuse

## make compose-test: the image and docker-compose.yml built and run for real with podman
## (as root): stand-in base images from Debian packages (kept between runs), both notifier
## profiles, a game of each kind through the gateway and each replica while a replica and
## a worker are killed and postgres restarts; checks every acknowledged move and replays
## every game, tears down with volumes; prints each phase's time and the image's size
compose-test: $(STAMP)
	$(BIN)/python deploy/compose_test.py

## make partition-test: two replicas in network namespaces of their own (ip netns, veth; as
## root), Postgres and NATS reached across the links; one replica's link cut mid-game and
## healed while clients and a worker fail over; prints the acknowledged moves, lost and
## applied twice (0), games replayed. PARTITION_NOTIFY=nats for NATS wake-ups.
PARTITION_NOTIFY ?= postgres
partition-test: $(STAMP)
	$(BIN)/python -m tests.partition.run --notify $(PARTITION_NOTIFY)

## make leak-check: the all-outgoing-messages leak test over 300 random games (make test plays 60)
leak-check: $(STAMP)
	LEAK_GAMES=300 nice -n 10 $(BIN)/python -m pytest -q -s --timeout 1800 tests/service/test_no_leaks.py -k many

## --- Benchmarks (each prints its figures) ------------------------------------------------

## make bench: the engine benchmark (bench-engine)
bench: bench-engine

## make bench-engine: random-playout games per second, Hearts against OpenSpiel
bench-engine: bench-deps
	$(BIN)/python bench/engine.py

## make bench-service: acts/s, act latency and CPU per act over gRPC against a scratch Postgres
## database, beside the empty-call and commit floors and a skeleton service (bench/skeleton.py);
## and the watched shape (every seat on a Watch stream, then 10 spectators per game more),
## beside the skeleton and the bare game (the skeleton that also plays the game)
bench-service: $(STAMP)
	$(BIN)/python bench/service.py

## make bench-act-cost: the service's instructions per move under valgrind (callgrind): a
## figure that other load on the machine cannot move; then the watched shape's, beside the
## skeleton's and the bare game's, and the least work a watched move needs (rules, views,
## bytes; no server, store or loop: bench/move_floor.py) (a few minutes)
bench-act-cost: $(STAMP)
	$(BIN)/python bench/act_cost.py
	$(BIN)/python bench/act_cost.py --shape watched --moves 200
	$(BIN)/python bench/move_floor.py --moves 200 --count

## make bench-home: history p50 for a player with 10,000 finished tables and the leaderboard of
## 100,000 rated accounts, on a scratch Postgres database, with the indexes each query uses
bench-home: $(STAMP)
	$(BIN)/python bench/home.py

## make selfplay-ratings: each bot level's OpenSkill ordinal from 200 self-play games per game,
## rated through the rating projection (app/ratings.py), with 95% intervals; a process per
## game, as many at once as there are cores (long: 2,824 s on two cores, measured)
selfplay-ratings: $(STAMP)
	$(BIN)/python bench/selfplay_ratings.py --games 200

## make bench-notify: append commits/s at 1, 16 and 64 writers and the wake-up latency to
## another replica, with no notifier, pg_notify and NATS (needs NATS at 127.0.0.1:4222)
bench-notify: $(STAMP)
	$(BIN)/python bench/notify.py

## make bench-replay: events replayed per second, and the time to rebuild a six-player Wizard game
bench-replay: $(STAMP)
	$(BIN)/python bench/replay.py

## make bench-scale: bot move latency and ClaimTurn cost with 0, 2,000 and 20,000 tables in
## play waiting for people (hosted through the API, each batch timed), on a scratch Postgres
## database (a few minutes); prints the table of figures and the targets
bench-scale: $(STAMP)
	$(BIN)/python bench/scale.py

## make bench-analysis: CPU seconds to analyse every decision of one seat over a whole game
## of each kind at the default budget (issue 35), and the games a minute one worker
## process analyses
bench-analysis: $(STAMP)
	$(BIN)/python bench/analysis.py

## make analysis-calibration: 750 self-play games (a normal seat against experts: 75 each of
## Wizard and Hearts, 300 each of Crazy 8s and Kaiser, whose score differences are mostly the
## cards' luck), the normal seat's decisions analysed: predicted points given away against
## the realised score difference, by bucket, with the correlation (about 35 minutes on two
## cores)
analysis-calibration: $(STAMP)
	nice -n 10 $(BIN)/python bench/analysis.py --calibrate --games 150 \
		--game wizard --game hearts --rows build/analysis-calibration.jsonl
	nice -n 10 $(BIN)/python bench/analysis.py --calibrate --games 600 \
		--game crazy8s --game kaiser --rows build/analysis-calibration-more.jsonl

## --- The computer opponents' evaluation --------------------------------------------------

## make selfplay: the computer opponents against each other and random play, with the
## targets they must meet (several minutes); the report is also written to build/selfplay.json
selfplay: $(STAMP)
	mkdir -p build
	$(BIN)/parlour selfplay --json build/selfplay.json

## make selfplay-expert: the expert level on duplicate deals against the documented AI and
## OpenSpiel's ISMCTS (installs the bench extra; long: run it on a quiet machine)
selfplay-expert: bench-deps
	mkdir -p build
	nice -n 10 $(BIN)/parlour selfplay \
		--games wizard-expert,hearts-expert,hearts-ismcts,kaiser-expert,crazy8s-expert \
		--json build/selfplay-expert.json

## --- The Node.js example client ----------------------------------------------------------

## make node-client: install the Node.js example client's packages (clients/node, npm ci);
## the Node test also does this itself when node_modules is missing
node-client:
	cd clients/node && npm ci --no-audit --no-fund
