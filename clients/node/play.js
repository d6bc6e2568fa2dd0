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
//        [--seed 7] [--json]
//
// Exit status: 0 when the game was played to its end with every version seen,
// 1 on any error (the message says what happened).
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

function unary(client, method, request, metadata) {
  return new Promise((resolve, reject) => {
    client[method](request, metadata || new grpc.Metadata(), (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}

function withToken(key, token) {
  const metadata = new grpc.Metadata();
  metadata.set(key, token);
  return metadata;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
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
    if (args.json) console.log(JSON.stringify(result));
  } finally {
    player.close();
  }
}

main().catch((error) => {
  log(error && error.details ? `${error.code} ${error.details}` : String(error && error.stack ? error.stack : error));
  process.exit(1);
});
