#!/bin/sh
# With no arguments, start the service this image was built for from its bundle; with arguments, run
# them instead (the migrate one-shot runs `node services/management/dist/migrate.mjs`, the admin CLI
# `node services/management/dist/cli.mjs accounts:create …`).
set -eu
# KURZ_APP_DIR only for infra/compose.test.ts, which runs this script outside an image.
cd "${KURZ_APP_DIR:-/app}"
if [ "$#" -eq 0 ]; then
  # The service's Node flags (nodeFlagsFor, decisions 0001 and 0038) and KURZ_MEMORY_MB's bounds
  # (infra/build/memory.ts), from the bundled memory-bounds script: exports and a `set --`. A refused
  # budget stops here, its reason on stderr (the assignment, unlike eval, fails with the script).
  bounds="$(node "services/${SERVICE}/dist/memory-bounds.mjs" start "$SERVICE")"
  eval "$bounds"
  exec node "$@" "services/${SERVICE}/dist/main.mjs"
fi
exec "$@"
