"""The Postgres store's SQL: every statement ``postgres.PostgresEventStore`` sends.

Plain text for psycopg, with ``%s`` / ``%(name)s`` parameters. The append of a
move is one statement (``APPEND``, explained in ``postgres.py``); the others
read or write one table by its key, except the lobby's read (a table with its
seats in one round trip) and the bot workers' scan (turns without a live lease).
"""

from __future__ import annotations

# The version bump (the guard), the insert made only if it matched, and the NOTIFY. The
# events and the turns go as one JSON array each (json.dumps is C; psycopg dumps a
# Python list element by element).
APPEND = """
WITH bump AS (
    UPDATE tables
    SET version = %(new_version)s, updated_at = %(now)s,
        status = coalesce(%(new_status)s::text, status),
        person_active_at = coalesce(%(active)s::timestamptz, person_active_at)
    WHERE table_id = %(g)s AND version = %(expected)s
    RETURNING table_id
), ins AS (
    INSERT INTO events
        (game_id, seq, type, schema_version, payload, digest, request_id, created_at)
    SELECT bump.table_id, e.seq, e.type, e.schema_version, e.payload, e.digest,
           e.request_id, %(now)s
    FROM bump, jsonb_to_recordset(%(events)s::jsonb) AS e(
        seq int, type text, schema_version int, payload jsonb, digest text, request_id text)
    RETURNING seq
), gone AS (
    DELETE FROM turns USING bump
    WHERE %(set_turns)s AND turns.table_id = bump.table_id AND turns.seat NOT IN (
        SELECT (t->>'seat')::int FROM jsonb_array_elements(%(turns)s::jsonb) AS t)
), put AS (
    INSERT INTO turns (table_id, seat, game, version, kind, since, deadline)
    SELECT bump.table_id, t.seat, t.game, %(new_version)s, t.kind, t.since, t.deadline
    FROM bump, jsonb_to_recordset(%(turns)s::jsonb)
         AS t(seat int, game text, kind text, since timestamptz, deadline timestamptz)
    ON CONFLICT (table_id, seat) DO UPDATE SET version = excluded.version,
        kind = excluded.kind, since = excluded.since, deadline = excluded.deadline
)
SELECT {notify}, (SELECT count(*) FROM ins) FROM bump
"""
# with pg_notify -> the statement; without, the NOTIFY is left to the notifier
APPENDS = {
    notify: APPEND.replace("{notify}", "pg_notify(%(channel)s, %(note)s)" if notify else "NULL")
    for notify in (True, False)
}
INSERT_TABLE = """
INSERT INTO tables (table_id, game, seats, options, status, host_token_hash, version, name,
                    created_at, updated_at, person_active_at, host_account_id)
VALUES (%s, %s, %s, %s::jsonb, %s, %s, %s, %s, %s, %s, %s, %s)
"""
INSERT_EVENT = """
INSERT INTO events (game_id, seq, type, schema_version, payload, digest, request_id, created_at)
VALUES (%s, %s, %s, %s, %s::jsonb, %s, %s, %s)
"""
INSERT_TURN = """
INSERT INTO turns (table_id, seat, game, version, kind, since, deadline)
VALUES (%s, %s, %s, %s, %s, %s, %s)
"""
UPSERT_SEAT = """
INSERT INTO seats (table_id, seat, kind, bot_level, player_name, token_hash, occupied,
                   account_id, code_hash)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (table_id, seat) DO UPDATE SET kind = excluded.kind,
    bot_level = excluded.bot_level, player_name = excluded.player_name,
    token_hash = excluded.token_hash, occupied = excluded.occupied,
    account_id = excluded.account_id, code_hash = excluded.code_hash
"""
READ = """
SELECT seq, type, schema_version, payload, digest, request_id, created_at
FROM events WHERE game_id = %s AND seq > %s AND seq <= coalesce(%s, seq) ORDER BY seq
"""
FIND_REQUEST = "SELECT seq FROM events WHERE game_id = %s AND request_id = %s"
LAST_SEQ = "SELECT coalesce(max(seq), 0) FROM events WHERE game_id = %s"
# Tables with their seats in one round trip (the seats as a JSON array of rows).
TABLES = """
SELECT t.table_id, t.game, t.seats, t.options, t.status, t.host_token_hash, t.version,
       t.name, t.created_at, t.updated_at, t.person_active_at, t.host_account_id,
       coalesce((SELECT json_agg(json_build_array(s.seat, s.kind, s.bot_level, s.player_name,
                                                  s.token_hash, s.occupied, s.account_id,
                                                  s.code_hash) ORDER BY s.seat)
                 FROM seats s WHERE s.table_id = t.table_id), '[]'::json)
FROM tables t
"""
GET_TABLE = TABLES + " WHERE t.table_id = %s"
# newest first, after the keyset cursor (created_at, table_id) when one is given
LIST_TABLES = (
    TABLES
    + " WHERE t.status = coalesce(%(status)s, t.status) AND t.game = coalesce(%(game)s, t.game)"
    + " AND (%(created)s::timestamptz IS NULL OR t.created_at < %(created)s"
    + " OR (t.created_at = %(created)s AND t.table_id > %(after_id)s))"
    + " ORDER BY t.created_at DESC, t.table_id LIMIT %(limit)s"
)
CLAIM_LEASE = """
INSERT INTO bot_leases (table_id, seat, worker_id, version, expires_at)
VALUES (%(table_id)s, %(seat)s, %(worker_id)s, %(version)s, %(expires_at)s)
ON CONFLICT (table_id, seat) DO UPDATE SET worker_id = excluded.worker_id,
    version = excluded.version, expires_at = excluded.expires_at
WHERE bot_leases.expires_at <= %(now)s OR bot_leases.worker_id = excluded.worker_id
   OR bot_leases.version < excluded.version
RETURNING table_id
"""
RELEASE_LEASE = """
DELETE FROM bot_leases WHERE table_id = %s AND seat = %s AND worker_id = coalesce(%s, worker_id)
"""
GET_LEASE = """
SELECT table_id, seat, worker_id, version, expires_at FROM bot_leases
WHERE table_id = %s AND seat = %s
"""
COUNT_TABLES = "SELECT status, count(*) FROM tables GROUP BY status"
# The bot workers' claim: an index scan of ix_turns_kind_since (bot turns, the longest
# waiting first), skipping those under a live lease; turns waiting for people are never read.
BOT_TURNS = """
SELECT t.table_id, t.seat, t.version FROM turns t
LEFT JOIN bot_leases l ON l.table_id = t.table_id AND l.seat = t.seat
WHERE t.kind = 'bot' AND (cardinality(%(games)s::text[]) = 0 OR t.game = ANY(%(games)s::text[]))
  AND (l.table_id IS NULL OR l.expires_at <= %(now)s OR l.version < t.version
       OR l.worker_id = %(worker)s)
ORDER BY t.since LIMIT %(limit)s
"""
DUE_TURNS = """
SELECT table_id, seat, version FROM turns WHERE deadline <= %s ORDER BY deadline LIMIT %s
"""
IDLE_TABLES = """
SELECT table_id FROM tables WHERE status = %s AND person_active_at < %s
ORDER BY person_active_at LIMIT %s
"""
TURN_ROWS = """
SELECT seat, kind, game, since, deadline FROM turns WHERE table_id = %s ORDER BY seat
"""
