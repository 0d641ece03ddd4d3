#!/bin/sh
# Regenerates the *.expected files from a MariaDB 10.11 server started with
#   --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci
# Usage: generate.sh PORT   (run from this directory)
set -e
port=${1:?port}
for f in *.sql; do
  { echo "drop database if exists cmpdb;"; echo "create database cmpdb;"; echo "use cmpdb;"; cat "$f"; } |
    mariadb -h127.0.0.1 -P"$port" -uroot --batch --force -n --default-character-set=utf8mb4 2>&1 |
    awk '
      /^--------------$/ { if (inblk) { inblk=0; skipblank=1 } else { inblk=1 }; next }
      inblk { next }
      skipblank && /^$/ { skipblank=0; next }
      { skipblank=0; print }' > "${f%.sql}.expected"
done
