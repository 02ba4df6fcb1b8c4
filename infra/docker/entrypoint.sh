#!/bin/sh
# With no arguments, start the service this image was built for; with arguments, run them
# instead (the migrate one-shot runs `pnpm db:migrate` in the management image).
set -eu
cd /app
if [ "$#" -eq 0 ]; then
  # A service built into a bundle (the redirect, decision 0008) runs from it, with the flags of
  # BUNDLE_NODE_FLAGS in infra/build/bundle.ts; the others from source.
  if [ -f "services/${SERVICE}/dist/main.mjs" ]; then
    exec node --max-semi-space-size=8 "services/${SERVICE}/dist/main.mjs"
  fi
  exec node --import tsx "services/${SERVICE}/src/main.ts"
fi
exec "$@"
