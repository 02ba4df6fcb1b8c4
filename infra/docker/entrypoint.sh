#!/bin/sh
# With no arguments, start the service this image was built for; with arguments, run them
# instead (the migrate one-shot runs `pnpm db:migrate` in the management image).
set -eu
cd /app
if [ "$#" -eq 0 ]; then
  exec node --import tsx "services/${SERVICE}/src/main.ts"
fi
exec "$@"
