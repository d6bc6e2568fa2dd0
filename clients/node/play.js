#!/usr/bin/env node
// A Parlour client in Node.js, written from the .proto files alone: it hosts a
// table with computer opponents, plays one seat to the end of the game by
// legal-action ids, resumes its watch whenever the stream drops (and can drop
// it on purpose with --drop-every), checks that no version was missed, and
// prints the result. The .proto files are loaded at run time with
// @grpc/proto-loader: no generated code.
//
//   node play.js --server 127.0.0.1:50051 --game hearts [--seats 4]
//        [--option target=32 ...] [--bot-level random] [--drop-every 25]
//        [--seed 7] [--no-players-entropy] [--json]
//   node play.js --check-replay REPLAY.json   (a GetReplayResponse as JSON)
//
// At the end it verifies every deal of the finished game on its own (Node's
// crypto; docs/fair-deals.md): each revealed deck and salt must hash to the
// commitment it saw in the Watch stream before the deal was played, and with
// players' entropy (on unless --no-players-entropy; it contributes its own
// random value) each deck must be the documented shuffle of the server's
// seed and the players' contributions.
//
// Exit status: 0 when the game was played to its end with every version seen
// and every deal verified, 1 on any error (the message says what happened).
"use strict";

const path = require("node:path");
const crypto = require("node:crypto");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO_DIR = process.env.PARLOUR_PROTO_DIR || path.resolve(__dirname, "..", "..", "proto");
const SEAT_TOKEN = "x-parlour-seat-token";
const HOST_TOKEN = "x-parlour-host-token";

function parseArgs(argv) {
  const args = {
    server: "127.0.0.1:50051",
    game: "hearts",
    seats: 0,
    options: {},
    botLevel: "",
    dropEvery: 0,
    seed: Date.now() % 1000003,
    json: false,
    playersEntropy: true,
    checkReplay: "",
    name: "Node",
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${flag} needs a value`);
      return argv[++i];
    };
    if (flag === "--server") args.server = value();
    else if (flag === "--game") args.game = value();
    else if (flag === "--seats") args.seats = Number(value());
    else if (flag === "--option") {
      const [key, ...rest] = value().split("=");
      args.options[key] = rest.join("=");
    } else if (flag === "--bot-level") args.botLevel = value();
    else if (flag === "--drop-every") args.dropEvery = Number(value());
    else if (flag === "--seed") args.seed = Number(value());
    else if (flag === "--name") args.name = value();
    else if (flag === "--json") args.json = true;
    else if (flag === "--no-players-entropy") args.playersEntropy = false;
    else if (flag === "--check-replay") args.checkReplay = value();
    else throw new Error(`unknown argument ${flag} (see the top of play.js)`);
  }
  return args;
}

function loadContract() {
  const files = ["catalogue", "lobby", "play", "replay"].map((name) =>
    path.join("parlour", "v1", `${name}.proto`),
  );
  const definition = protoLoader.loadSync(files, {
    includeDirs: [PROTO_DIR],
    keepCase: true, // field names exactly as in the .proto files: table_id, legal_action_id
    longs: Number, // versions are int64; a game's fit in a JavaScript number
    enums: String, // enum values by name: "TABLE_STATUS_PLAYING"
    defaults: true, // unset fields read as their default (0, "", [])
    oneofs: true, // the name of the set field of a oneof: last_hand.game === "hearts"
  });
  return grpc.loadPackageDefinition(definition).parlour.v1;
}

// A small seeded generator (mulberry32), so a run can be repeated with --seed.
function randomFrom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unaryOnce(client, method, request, metadata) {
  return new Promise((resolve, reject) => {
    client[method](request, metadata || new grpc.Metadata(), (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}

// A call refused for its rate (RESOURCE_EXHAUSTED with the seconds to wait in the
// `retry-after` trailing metadata, see common.proto) changed nothing: wait and send it again.
async function unary(client, method, request, metadata) {
  for (let waits = 0; ; waits++) {
    try {
      return await unaryOnce(client, method, request, metadata);
    } catch (error) {
      const [after] = error.metadata ? error.metadata.get("retry-after") : [];
      const wait = Number(after);
      if (error.code !== grpc.status.RESOURCE_EXHAUSTED || !(wait <= 5) || waits >= 20) throw error;
      await sleep(Math.max(wait, 0.05) * 1000);
    }
  }
}

function withToken(key, token) {
  const metadata = new grpc.Metadata();
  metadata.set(key, token);
  return metadata;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// -- verifying deals (docs/fair-deals.md), with Node's crypto only --------------------

const sha256 = (data) => crypto.createHash("sha256").update(data).digest();
const sha256Hex = (text) => crypto.createHash("sha256").update(text, "utf8").digest("hex");

function dealCommitment(cards, salt) {
  return sha256Hex(`parlour-deal-v1\n${salt}\n${cards.join(" ")}`);
}

// The documented shuffle: sorted codes, Fisher-Yates over a SHA-256 counter stream.
function derivedDeck(cards, seed, contributions, n) {
  const key = sha256(Buffer.from(`parlour-shuffle-v1\n${seed}\n${contributions.join(",")}\n${n}`, "utf8"));
  let counter = 0;
  let buffer = Buffer.alloc(0);
  const nextWord = () => {
    if (buffer.length < 4) {
      const index = Buffer.alloc(4);
      index.writeUInt32BE(counter++);
      buffer = Buffer.concat([buffer, sha256(Buffer.concat([key, index]))]);
    }
    const word = buffer.readUInt32BE(0);
    buffer = buffer.subarray(4);
    return word;
  };
  const deck = [...cards].sort();
  for (let i = deck.length - 1; i > 0; i--) {
    const span = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % span);
    let u = nextWord();
    while (u >= limit) u = nextWord();
    const r = u % span;
    [deck[i], deck[r]] = [deck[r], deck[i]];
  }
  return deck;
}

// Check every deal of a finished game's replay; `announced` maps deal number
// -> the commitment seen during play. Returns {verified, entropy}; throws at
// the first event that fails, naming it.
function verifyDeals(replay, announced = new Map(), mine = null) {
  if (!replay.finished) throw new Error("the game is not over: deals are revealed at the end");
  let seed = "";
  let entropy = false;
  let contributions = [];
  let deal = 0;
  let verified = 0;
  for (const event of replay.events) {
    const payload = JSON.parse(event.payload_json);
    const where = `event ${event.seq} (${event.type})`;
    if (event.type === "TableHosted" && payload.players_entropy) {
      entropy = true;
      seed = payload.server_seed || "";
      if (sha256Hex(`parlour-seed-v1\n${seed}`) !== payload.server_seed_commitment) {
        throw new Error(`${where}: the server seed does not match its commitment`);
      }
    } else if (event.type === "GameStarted" && entropy) {
      contributions = payload.contributions || [];
      if (mine && contributions[mine.seat] !== mine.entropy) {
        throw new Error(`${where}: our contribution is not the one used`);
      }
    } else if (event.type === "CardsDealt") {
      const number = deal++;
      if (!payload.commitment) continue; // an old log's deal: nothing committed
      if (dealCommitment(payload.cards, payload.salt) !== payload.commitment) {
        throw new Error(`${where}: deal ${number}'s deck and salt do not match its commitment`);
      }
      if (announced.has(number) && announced.get(number) !== payload.commitment) {
        throw new Error(`${where}: deal ${number}'s commitment is not the one announced during play`);
      }
      if (new Set(payload.cards).size !== payload.cards.length) {
        throw new Error(`${where}: deal ${number}'s deck repeats a card`);
      }
      if (entropy && derivedDeck(payload.cards, seed, contributions, number).join(" ") !== payload.cards.join(" ")) {
        throw new Error(`${where}: deal ${number}'s deck is not the shuffle of the seed and contributions`);
      }
      verified += 1;
    }
  }
  return { verified, entropy };
}

// Everything about the one seat this client plays.
class Player {
  constructor(contract, args) {
    const credentials = grpc.credentials.createInsecure();
    this.catalogue = new contract.CatalogueService(args.server, credentials);
    this.lobby = new contract.LobbyService(args.server, credentials);
    this.play = new contract.PlayService(args.server, credentials);
    this.replay = new contract.ReplayService(args.server, credentials);
    this.args = args;
    this.random = randomFrom(args.seed);
    this.lastVersion = 0; // the last version any Watch message brought
    this.seen = new Set(); // every event version received through Watch
    this.resumes = 0;
    this.dropped = 0; // streams this client cancelled on purpose
    this.moves = 0;
    this.aborted = 0;
    this.actedAt = -1; // the version of the view the last act was decided on
    this.handsSeen = new Map(); // hand_number -> last_hand, as each hand ended
    this.view = null;
    this.failure = null; // the first error of an act made while watching
    this.commitments = new Map(); // deal number -> commitment, as Watch announced it
    this.entropy = crypto.randomBytes(32).toString("hex"); // our contribution to the deals
  }

  async host() {
    const { game } = await unary(this.catalogue, "GetGame", { game: this.args.game });
    const seats = this.args.seats || game.min_seats;
    const levels = game.bot_levels;
    // The weakest level (listed first) plays fastest; any listed level is accepted.
    const level = this.args.botLevel || (levels.length ? levels[0] : "");
    if (level && levels.length && !levels.includes(level)) {
      throw new Error(`${game.name} offers bot levels ${levels.join(", ")}, not ${level}`);
    }
    const seatSetup = [{ kind: "SEAT_KIND_PERSON" }];
    for (let seat = 1; seat < seats; seat++) seatSetup.push({ kind: "SEAT_KIND_BOT", bot_level: level });
    const hosted = await unary(this.lobby, "HostTable", {
      game: game.id,
      seats,
      options: this.args.options,
      seat_setup: seatSetup,
      host_player_name: this.args.name,
      host_takes_seat: true,
      players_entropy: this.args.playersEntropy,
      host_entropy: this.entropy,
    });
    this.game = game;
    this.tableId = hosted.table.table_id;
    this.seat = hosted.seat;
    this.token = hosted.seat_token;
    await unary(this.lobby, "StartTable", { table_id: this.tableId }, withToken(HOST_TOKEN, hosted.host_token));
    log(`hosted ${game.name} table ${this.tableId}: seat ${this.seat} is ours, ${seats - 1} bots (${level || "default"})`);
  }

  // One Watch stream from lastVersion. Resolves "over" when the game ended, or
  // "dropped" when the stream broke or was cancelled here (resume then).
  watchOnce() {
    return new Promise((resolve, reject) => {
      const call = this.play.Watch(
        { table_id: this.tableId, seat: this.seat, from_version: this.lastVersion },
        withToken(SEAT_TOKEN, this.token),
      );
      let messages = 0;
      let settled = false;
      const settle = (outcome, error) => {
        if (settled) return;
        settled = true;
        error ? reject(error) : resolve(outcome);
      };
      call.on("data", (update) => {
        try {
          this.receive(update);
        } catch (error) {
          call.cancel();
          settle(null, error);
          return;
        }
        messages += 1;
        if (update.view.is_over) return; // the server ends the stream with OK
        // Acting is a unary call of its own, so it goes on even if the stream drops.
        this.decide(update).catch((error) => {
          this.failure = this.failure || error;
          call.cancel();
        });
        if (this.args.dropEvery && messages % this.args.dropEvery === 0) {
          this.dropped += 1;
          call.cancel(); // a dropped connection, on purpose: resume from lastVersion
        }
      });
      call.on("error", (error) => {
        if (error.code === grpc.status.CANCELLED || error.code === grpc.status.UNAVAILABLE) {
          settle("dropped");
        } else {
          settle(null, error);
        }
      });
      call.on("end", () => settle(this.view && this.view.is_over ? "over" : "dropped"));
    });
  }

  // Take one Watch message: check that its events follow on from the last
  // version without a gap, and remember the newest view.
  receive(update) {
    const version = Number(update.version);
    let expected = this.lastVersion + 1;
    for (const event of update.events) {
      const got = Number(event.version);
      if (got !== expected) {
        throw new Error(`missed a version: expected event ${expected}, got ${got}`);
      }
      this.seen.add(got);
      if (event.type === "CardsDealt") this.commitments.set(this.commitments.size, event.deal_commitment);
      expected += 1;
    }
    if (update.events.length && expected - 1 !== version) {
      throw new Error(`the view is at version ${version} but the events end at ${expected - 1}`);
    }
    if (version < this.lastVersion) throw new Error(`version went back from ${this.lastVersion} to ${version}`);
    this.lastVersion = version;
    this.view = update.view;
    const hand = update.view.last_hand;
    if (hand && hand.hand_number && !this.handsSeen.has(hand.hand_number)) {
      this.handsSeen.set(hand.hand_number, hand);
      log(`hand ${hand.hand_number} over: ${hand.text}`);
    }
  }

  async decide(update) {
    const view = update.view;
    const version = Number(update.version);
    if (!view.to_act.includes(this.seat) || !view.legal_actions.length) return;
    if (version <= this.actedAt) return; // already acted on this version
    this.actedAt = version;
    const choice = view.legal_actions[Math.floor(this.random() * view.legal_actions.length)];
    const request = {
      table_id: this.tableId,
      seat: this.seat,
      legal_action_id: choice.id,
      expected_version: version,
      request_id: crypto.randomUUID(),
    };
    for (let attempt = 0; ; attempt++) {
      try {
        await unary(this.play, "Act", request, withToken(SEAT_TOKEN, this.token));
        this.moves += 1;
        return;
      } catch (error) {
        if (error.code === grpc.status.ABORTED) {
          // The table moved on (bots pass their Hearts cards at the same time):
          // the watch brings the newer view, and we decide again on it.
          this.aborted += 1;
          return;
        }
        if (error.code === grpc.status.UNAVAILABLE && attempt < 5) {
          await sleep(100 * 2 ** attempt); // same request_id: applied at most once
          continue;
        }
        throw new Error(`Act ${choice.action.text} refused: ${error.code} ${error.details}`);
      }
    }
  }

  async playToTheEnd() {
    for (let attempt = 0; ; ) {
      const outcome = await this.watchOnce();
      if (this.failure) throw this.failure;
      if (outcome === "over") return;
      this.resumes += 1;
      attempt = this.dropped >= this.resumes ? 0 : attempt + 1; // backoff only for real drops
      if (attempt > 8) throw new Error("the watch keeps failing; giving up");
      if (attempt) await sleep(50 * 2 ** attempt);
    }
  }

  // The finished game's whole log: every version must have come through Watch.
  async checkNothingMissed() {
    const replay = await unary(this.replay, "GetReplay", { table_id: this.tableId });
    if (!replay.finished) throw new Error("the replay says the game is not finished");
    const missing = replay.events.map((e) => Number(e.seq)).filter((seq) => !this.seen.has(seq));
    if (missing.length) throw new Error(`versions never seen through Watch: ${missing.join(", ")}`);
    this.deals = verifyDeals(replay, this.commitments, { seat: this.seat, entropy: this.entropy });
    if (this.deals.verified !== this.commitments.size) {
      throw new Error(`${this.commitments.size} deals announced, ${this.deals.verified} verified`);
    }
    return Number(replay.version);
  }

  close() {
    for (const client of [this.catalogue, this.lobby, this.play, this.replay]) client.close();
  }
}

function log(line) {
  process.stderr.write(`parlour-node: ${line}\n`);
}

function describe(player, finalVersion) {
  const view = player.view;
  const hand = view.last_hand;
  // proto-loader marks each set proto3 `optional` field with a "_name" key: leave those out
  const detail =
    hand && hand.game
      ? Object.fromEntries(Object.entries(hand[hand.game]).filter(([key]) => !key.startsWith("_")))
      : null;
  return {
    game: view.game,
    table_id: player.tableId,
    seat: player.seat,
    version: finalVersion,
    hands_played: hand ? hand.hand_number : 0,
    hands_seen: player.handsSeen.size,
    scores: view.scores,
    winners: view.winners,
    end_reason: view.end_reason,
    end_rule: view.end_rule.text,
    last_hand: hand ? { text: hand.text, points: hand.points, totals: hand.totals, [hand.game]: detail } : null,
    moves: player.moves,
    aborted: player.aborted,
    resumes: player.resumes,
    dropped_on_purpose: player.dropped,
    versions_seen: player.seen.size,
    deals_verified: player.deals.verified,
    players_entropy: player.deals.entropy,
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.checkReplay) {
    const replay = JSON.parse(require("node:fs").readFileSync(args.checkReplay, "utf8"));
    const { verified, entropy } = verifyDeals(replay);
    console.log(`${verified} deals verified${entropy ? " (derived from the seeds)" : ""}`);
    return;
  }
  const player = new Player(loadContract(), args);
  try {
    await player.host();
    await player.playToTheEnd();
    const finalVersion = await player.checkNothingMissed();
    const result = describe(player, finalVersion);
    const who = result.winners.map((seat) => `seat ${seat}${seat === player.seat ? " (us)" : ""}`).join(" and ");
    console.log(`${player.game.name} is over (${result.end_reason}): won by ${who}`);
    console.log(`scores: ${result.scores.join(", ")}; last hand: ${result.last_hand ? result.last_hand.text : "-"}`);
    console.log(
      `${result.moves} moves, ${result.versions_seen} of ${finalVersion} versions seen through Watch, ` +
        `${result.resumes} resumes (${result.dropped_on_purpose} drops on purpose)`,
    );
    console.log(
      `${result.deals_verified} deals verified: each revealed deck and salt hash to the commitment ` +
        "announced before the deal was played" +
        (result.players_entropy ? ", and each deck is the documented shuffle of the server's seed and the players' contributions (ours included)" : ""),
    );
    if (args.json) console.log(JSON.stringify(result));
  } finally {
    player.close();
  }
}

main().catch((error) => {
  log(error && error.details ? `${error.code} ${error.details}` : String(error && error.stack ? error.stack : error));
  process.exit(1);
});
