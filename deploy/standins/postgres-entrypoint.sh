#!/bin/sh
# The postgres stand-in's entrypoint: a new cluster on first start (the user, its
# password and its database from POSTGRES_*), then postgres in the foreground.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}" "${POSTGRES_PASSWORD:=}"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
mkdir -p "$PGDATA" /var/run/postgresql
chown -R postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    chown postgres "$pwfile"
    as_postgres initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -E UTF8 \
        --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 > /dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    as_postgres pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start > /dev/null
    if [ "$POSTGRES_DB" != postgres ]; then
        as_postgres createdb -U "$POSTGRES_USER" -O "$POSTGRES_USER" "$POSTGRES_DB"
    fi
    as_postgres pg_ctl -D "$PGDATA" -w -m fast stop > /dev/null
    echo "postgres stand-in: initialised $PGDATA"
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups \
    postgres -D "$PGDATA" -c listen_addresses='*' "$@"
