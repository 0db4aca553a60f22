#!/bin/bash
# Entry point of the Neo4j stand-in, after the official image's: NEO4J_AUTH (neo4j/<password> or
# none) sets the initial password on a fresh /data, every other NEO4J_<setting> becomes a
# neo4j.conf line (`_` -> `.`, `__` -> `_`), and the server (or any other command, such as
# neo4j-admin) runs as user neo4j (uid 7474), owner of /data, /logs and a mounted /backups.
set -euo pipefail

write_conf() {
  local conf="${NEO4J_CONF}/neo4j.conf" name setting
  {
    echo "server.directories.data=/data"
    echo "server.directories.logs=/logs"
    echo "server.directories.import=/import"
    echo "server.directories.plugins=/plugins"
    echo "server.default_listen_address=0.0.0.0"
    for name in $(compgen -e | grep '^NEO4J_' || true); do
      case "${name}" in
        NEO4J_AUTH | NEO4J_HOME | NEO4J_CONF | NEO4J_EDITION | NEO4J_ACCEPT_LICENSE_AGREEMENT) ;;
        *)
          setting="${name#NEO4J_}"
          setting="${setting//__/@}"
          setting="${setting//_/.}"
          echo "${setting//@/_}=${!name}"
          ;;
      esac
    done
    if [ "${NEO4J_AUTH:-}" = "none" ]; then
      echo "dbms.security.auth_enabled=false"
    fi
  } >"${conf}"
}

as_neo4j() {
  if [ "$(id -u)" = "0" ]; then
    exec setpriv --reuid=neo4j --regid=neo4j --init-groups "$@"
  fi
  exec "$@"
}

write_conf
if [ "$(id -u)" = "0" ]; then
  chown -R neo4j:neo4j /data /logs "${NEO4J_CONF}"
  if [ -d /backups ]; then
    chown -R neo4j:neo4j /backups # where `neo4j-admin database dump` writes (docs/deploy.md)
  fi
fi
case "${NEO4J_AUTH:-}" in
  "" | none) ;;
  neo4j/*)
    if [ ! -d /data/databases/system ]; then
      (as_neo4j neo4j-admin dbms set-initial-password "${NEO4J_AUTH#neo4j/}")
    fi
    ;;
  *)
    echo "NEO4J_AUTH must be neo4j/<password> or none" >&2
    exit 1
    ;;
esac
if [ "${1:-}" = "neo4j" ]; then
  as_neo4j neo4j console
fi
as_neo4j "$@"
