#!/bin/sh
# With no arguments, start the service this image was built for from its bundle; with arguments, run
# them instead (the migrate one-shot runs `node services/management/dist/migrate.mjs`, the admin CLI
# `node services/management/dist/cli.mjs accounts:create …`).
set -eu
# KURZ_APP_DIR only for infra/compose.test.ts, which runs this script outside an image.
cd "${KURZ_APP_DIR:-/app}"
if [ "$#" -eq 0 ]; then
  # The flags of nodeFlagsFor in infra/build/bundle.ts (decisions 0001 and 0038).
  case "$SERVICE" in
    redirect) semi=16 ;;
    *) semi=8 ;;
  esac
  exec node --max-semi-space-size="$semi" "services/${SERVICE}/dist/main.mjs"
fi
exec "$@"
